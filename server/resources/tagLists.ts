import { sql } from 'kysely'
import type { Caller } from '../access.js'
import type { Context } from '../http/endpoint.js'
import { parseValue } from '../http/fields.js'
import type { ListVia } from './core/define.js'
import { filterNames } from './core/listStatements.js'
import { parseId } from './core/read.js'
import type { Db, ResourceDef } from './resource.js'
import { tagSetPage } from './tagSetPages.js'
import { foldKeyIfCrowded, keptCountSql, parseKeptCount, type KeptKey } from './tagSetCount.js'

// tag/ at any size (docs/decisions.md, "Lists at scale"). A tag is readable when its tag set is, so:
// - ?tagSet= (with any other filters) checks the rule once, for the set, instead of once per tag;
//   alone or with tagClass, mediaFile, machineTagged or userTagged its count is kept (tagSetCount.ts) and its deep pages seek
//   (tagSetPages.ts);
// - with no filters, the count is the sum of the kept counts of the tag sets the caller may read;
// - ?mediaFile= alone counts from the kept counts of that media file in the readable tag sets.
// Other lists are read the usual way.

/** The ways tag/ is read for a request (ResourceDef.listVia); `tagDef` and `tagSetDef` are the resources. */
export function tagListVia(tagDef: () => ResourceDef<'tags'>, tagSetDef: () => ResourceDef<'tag_sets'>) {
  return (
    db: Db,
    caller: Caller,
    query: Record<string, string>,
    { records, tagSetPages }: Context['services'],
  ): ListVia | null => {
    // an empty value filters nothing (applyFilters)
    const names = filterNames(query).filter((n) => query[n] !== '')
    const readableSets = () => records.readable({ db, caller }, tagSetDef()).select(sql<number>`r.id`.as('id'))
    if (!names.length) {
      return {
        base: records.readable({ db, caller }, tagDef()),
        options: {
          count: async () =>
            Number(
              (
                await db
                  .selectFrom('tag_set_tag_counts as c')
                  .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('c.delta'), sql<string>`0`).as('n'))
                  .where('c.tag_set_id', 'in', readableSets())
                  .executeTakeFirstOrThrow()
              ).n,
            ),
        },
      }
    }
    const tagSetId = names.includes('tagSet') ? parseId(query.tagSet) : null
    if (tagSetId === null) {
      const fileId = names.length === 1 && names[0] === 'mediaFile' ? parseId(query.mediaFile) : null
      if (fileId === null) return null
      return {
        base: records.readable({ db, caller }, tagDef()),
        options: {
          count: async () =>
            Number(
              (
                await db
                  .selectFrom('tag_file_counts as c')
                  .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('c.delta'), sql<string>`0`).as('n'))
                  .where('c.media_file_id', '=', fileId)
                  .where('c.tag_set_id', 'in', readableSets())
                  .executeTakeFirstOrThrow()
              ).n,
            ),
        },
      }
    }
    const setReadable = () => records.readableRecord({ db, caller }, tagSetDef(), tagSetId)
    // an uncorrelated condition: PostgreSQL evaluates it once per statement
    const base = db.selectFrom('tags as r').where((eb) => eb.exists(setReadable()))
    const key = keptKey(tagSetId, names, query)
    if (!key) return { base, options: {} }
    return {
      base,
      options: {
        count: async () => {
          const text = (
            await db
              .selectNoFrom(
                sql<string | null>`(case when exists (${setReadable()}) then ${keptCountSql(key)} end)`.as('kept'),
              )
              .executeTakeFirstOrThrow()
          ).kept
          if (text === null) return 0
          const kept = parseKeptCount(key, text)
          await foldKeyIfCrowded(db, key, kept.rows)
          return kept.count
        },
        page: (ordered, limit, offset, run) => tagSetPage(tagSetPages, db, key, ordered, limit, offset, run),
      },
    }
  }
}

const FLAGS: Record<string, 'machine_tagged' | 'user_tagged'> = {
  machineTagged: 'machine_tagged',
  userTagged: 'user_tagged',
}

/** The kept count a request filtered by `tagSet` reads: the set's, or its class's or media file's; null when
 * it has other filters. */
function keptKey(tagSetId: number, names: string[], query: Record<string, string>): KeptKey | null {
  const others = names.filter((n) => n !== 'tagSet')
  if (!others.length) return { tagSetId }
  if (others.length !== 1) return null
  const flag = FLAGS[others[0]]
  if (flag) {
    // as applyFilters reads it (a value it refuses is answered 400 before the count is read)
    const parsed = parseValue({ type: 'boolean' }, query[others[0]])
    return parsed.ok ? { tagSetId, flag: { column: flag, value: parsed.value === true } } : null
  }
  const id = parseId(query[others[0]])
  if (id === null) return null
  if (others[0] === 'tagClass') return { tagSetId, by: { column: 'tag_class_id', id } }
  if (others[0] === 'mediaFile') return { tagSetId, by: { column: 'media_file_id', id } }
  return null
}
