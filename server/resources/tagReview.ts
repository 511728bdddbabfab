import { sql, type Kysely } from 'kysely'
import { onReviewOfTag, valueColumns, type Caller } from '../access.js'
import { DECISIONS } from '../analysis/reviews.js'
import { localTimestamp } from '../db/time.js'
import type { DB, Db } from '../db/schema.js'
import type { Context, Result } from '../http/endpoint.js'
import { badRequest, forbidden, MSG } from '../http/errors.js'
import { parseInput, parseValue, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { Coalescers } from '../db/coalesce.js'
import { callerKey, compiler, standInNumber, standInText } from './core/standIns.js'
import type { Records } from './core/records.js'
import { rowError } from '../db/rowError.js'
import type { Rec } from './core/define.js'
import { defineResource, hasErrors, readableRecord, render, resourceEndpoints, validateItems } from './resource.js'
import { tagClasses } from './tagClass.js'
import { tags } from './tag.js'
import { users } from './users.js'

// tagReview/ (extension, docs/decisions.md §19): a reviewer's decision on a tag: yes, no, unsure or skip, and
// for a `no` the class it is instead. One per tag and reviewer: deciding again changes the decision (200) instead
// of adding one (201). Readers of the tag's tag set read decisions; whoever may write it decides, and changes
// or deletes only their own. Deleting a tag deletes its decisions.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  tag: { type: 'pk', column: 'tag_id', target: () => tags, required: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  decision: { type: 'choice', column: 'decision', choices: DECISIONS, required: true, filter: true },
  tagClass: {
    type: 'pk',
    column: 'tag_class_id',
    target: () => tagClasses,
    nullable: true,
    default: null,
    description: 'with `no`: the class the tag is instead',
  },
  note: { type: 'string', column: 'note', allowBlank: true, default: '', maxLength: 10_000 },
  creationDate: { type: 'datetime', column: 'creation_date', readOnly: true },
} satisfies TableFields<'tag_reviews'>

/** A review of a tag (tagReview/) as the API answers it. */
export type TagReviewRecord = WireRecord<typeof fields>

export const tagReviews = defineResource({
  name: 'tagReview',
  title: 'Tag Review',
  description: "A reviewer's decision on a tag (one per tag and reviewer; deciding again changes it).",
  table: 'tag_reviews',
  fields,
  scope: onReviewOfTag('tag_id', 'user_id', 'tag_set_id'),
  owner: 'user_id',
  stamps: ['creation_date'],
  updatable: ['decision', 'tagClass', 'note'],
  createHandler: (ctx) => decide(ctx),
  listFilter: (qb, req) => {
    const raw = req.query.tagSet
    if (raw === undefined || raw === '') return qb
    const id = parseValue({ type: 'integer', min: 0 }, raw)
    if (!id.ok) throw badRequest({ tagSet: ['Enter a whole number.'] })
    // the decision's copy of its tag's set (migration 2026_11_27_3401)
    return qb.where('r.tag_set_id', '=', id.value as number)
  },
  listFilterParams: { tagSet: { type: 'pk', description: 'decisions on the tags of this tag set' } },
})

/** the columns a decision is written with: its own, and the copies of its tag's (migration 2026_11_27_3401),
 * which the statement reads from the tag it checks rather than have the trigger read it again */
const DECISION_COLUMNS = [
  'tag_id',
  'user_id',
  'decision',
  'tag_class_id',
  'note',
  'creation_date',
  'tag_set_id',
  'tagged_class_id',
  'tag_strength',
] as const
const tagCopies = ['dt.tag_set_id', 'dt.tag_class_id as tagged_class_id', 'dt.strength as tag_strength'] as const

type DecisionValues = { tag: number; decision: (typeof DECISIONS)[number]; tagClass?: number | null; note?: string }
/** a decision as written, and whether the statement made it (rather than changed it) */
type Decided = Rec<'tag_reviews'> & { created: boolean }

/** Builds statements for compiling (core/standIns.ts): typed by our tables, never connected. */
const builder = compiler as unknown as Kysely<DB>

/** INSERT … ON CONFLICT DO UPDATE of the rows `checked` selects, answering each row written and whether it was made. */
const upsert = (checked: Parameters<ReturnType<Kysely<DB>['insertInto']>['expression']>[0]) =>
  builder
    .insertInto('tag_reviews')
    .columns(DECISION_COLUMNS)
    .expression(checked)
    .onConflict((oc) =>
      oc.columns(['tag_id', 'user_id']).doUpdateSet((eb) => ({
        decision: eb.ref('excluded.decision'),
        tag_class_id: eb.ref('excluded.tag_class_id'),
        note: eb.ref('excluded.note'),
      })),
    )
    .returningAll()
    .returning(sql<boolean>`xmax = 0`.as('created'))

/** The decision made or changed, in one statement with its checks (the tag exists and the caller may decide on
 * it, the class it names is readable); null when a check fails. */
async function decideChecked(records: Records, db: Db, caller: Caller, v: DecisionValues): Promise<Decided | null> {
  const named = Boolean(v.tagClass)
  const query = records.statement(
    tagReviews,
    caller,
    named ? 'one, named' : 'one',
    [v.tag, v.decision, v.note ?? '', localTimestamp(), ...(named ? [v.tagClass] : [])],
    (set) => [
      standInNumber(set, 1),
      standInText(set, 2),
      standInText(set, 3),
      standInText(set, 4),
      ...(named ? [standInNumber(set, 5)] : []),
    ],
    (as, [tag, decision, note, now, tagClass]) =>
      upsert(
        builder
          .selectFrom('tags as dt')
          .where('dt.id', '=', tag as number)
          .select([
            'dt.id as tag_id',
            sql<number>`${as.id}::integer`.as('user_id'),
            sql<string>`${decision}::varchar`.as('decision'),
            sql<number | null>`${tagClass ?? null}::integer`.as('tag_class_id'),
            sql<string>`${note}::text`.as('note'),
            sql<string>`${now}::timestamp`.as('creation_date'),
            ...tagCopies,
          ])
          .where((eb) =>
            eb.and([
              tagReviews.scope.allows(eb, as, valueColumns({ tag_id: tag, user_id: as.id }), 'write'),
              ...(named ? [eb.exists(readableRecord(builder, tagClasses, as, tagClass as number))] : []),
            ]),
          ),
      ).compile(),
  )
  return ((await db.executeQuery(query)).rows[0] as Decided | undefined) ?? null
}

/** Decisions of one caller on distinct tags, none naming a class, made or changed in one statement with the
 * checks of each: the rows made, by tag; a decision whose checks fail has none. The decisions are read from
 * arrays by a series of a literal length (the batch's size to the next power of two; the positions past the
 * batch read nulls, which join no tag), so PostgreSQL estimates the rows of the statement's generic plan as of
 * its custom plans and keeps the generic one: with unnest() of the arrays it planned every batch again
 * (0.35 ms, more than the statement ran; BENCHMARKS.md, "Reviewing machine tags"). */
async function decideMany(
  records: Records,
  db: Db,
  caller: Caller,
  decisions: DecisionValues[],
): Promise<Map<number, Decided>> {
  const rows = Math.max(2, 2 ** Math.ceil(Math.log2(decisions.length)))
  const query = records.statement(
    tagReviews,
    caller,
    `many ${rows}`,
    [
      decisions.map((d) => d.tag),
      decisions.map((d) => d.decision),
      decisions.map((d) => d.note ?? ''),
      localTimestamp(),
    ],
    (set) => [[standInNumber(set, 1)], [standInText(set, 2)], [standInText(set, 3)], standInText(set, 4)],
    (as, [tags, verdicts, notes, now]) => {
      const given = sql<{ tag_id: number; decision: string; note: string }>`(select (${tags}::integer[])[i] as tag_id,
        (${verdicts}::varchar[])[i] as decision, (${notes}::text[])[i] as note from generate_series(1, ${sql.lit(rows)}) as i)`.as(
        'v',
      )
      return upsert(
        builder
          .selectFrom(given)
          .innerJoin('tags as dt', 'dt.id', 'v.tag_id')
          .select([
            'v.tag_id',
            sql<number>`${as.id}::integer`.as('user_id'),
            'v.decision',
            sql<number | null>`null::integer`.as('tag_class_id'),
            'v.note',
            sql<string>`${now}::timestamp`.as('creation_date'),
            ...tagCopies,
          ])
          .where((eb) =>
            tagReviews.scope.allows(
              eb,
              as,
              (c) => (c === 'user_id' ? sql`${as.id}::integer` : sql.ref(`v.${c}`)),
              'write',
            ),
          ),
      ).compile()
    },
  )
  const made = (await db.executeQuery(query)).rows as Decided[]
  return new Map(made.map((r) => [r.tag_id, r]))
}

/** Decisions of one caller that arrive while earlier ones of theirs are being made wait, and are made together
 * in one statement (decideMany), as single creates of tags are (docs/decisions.md §13, §19): at most two
 * batches of a caller at once (four left most decisions alone, BENCHMARKS.md), at most 250 decisions a batch. */
export const decisionBatches = () => new Coalescers<DecisionValues, Decided | null>(2, 250)
export type DecisionBatches = ReturnType<typeof decisionBatches>

/** The decision made or changed with its checks, alone or with the caller's others that arrive meanwhile; null
 * when a check fails (nothing written for it). */
function decideTogether(
  { records, reviewDecisions }: Context['services'],
  db: Db,
  caller: Caller,
  v: DecisionValues,
): Promise<Decided | null> {
  // a named class is checked readable by a statement of its own shape
  if (v.tagClass) return decideChecked(records, db, caller, v)
  return reviewDecisions
    .of(db, tagReviews)
    .submit(`${caller.id}|${callerKey(caller)}`, v, (batch) => decideBatch(records, db, caller, batch))
}

/** A batch's decisions: one alone; several in one statement, a tag's second decision after it alone. A batch
 * that PostgreSQL refuses for what a row holds (a tag deleted meanwhile) is made again decision by decision,
 * each with its own answer or error. */
function decideBatch(
  records: Records,
  db: Db,
  caller: Caller,
  batch: DecisionValues[],
): Array<Promise<Decided | null>> {
  const alone = (v: DecisionValues) => decideChecked(records, db, caller, v)
  if (batch.length === 1) return [alone(batch[0])]
  const seen = new Set<number>()
  const first = batch.filter((v) => !seen.has(v.tag) && seen.add(v.tag))
  const made = decideMany(records, db, caller, first)
  const done = made.then(
    () => undefined,
    () => undefined,
  )
  const firstOf = new Set(first)
  return batch.map((v) =>
    firstOf.has(v)
      ? made.then(
          (rows) => rows.get(v.tag) ?? null,
          (e: unknown) => (rowError(e) ? alone(v) : Promise.reject(e)),
        )
      : // one statement may not change a row twice: a tag's other decisions follow the batch's
        done.then(() => alone(v)),
  )
}

/** POST tagReview/: the caller's decision on a tag, made or changed in one statement; when that statement
 * writes nothing, the ordinary checks say why. */
async function decide(ctx: Context): Promise<Result> {
  const body = await ctx.body()
  if (Array.isArray(body)) throw badRequest({ non_field_errors: [MSG.notDict('list')] })
  const parsed = parseInput(tagReviews.compiled.fields, body, 'create')
  // with the accelerators on, decisions that arrive together are made together; off, each goes through the checks
  if (ctx.services.records.accelerated && !Object.keys(parsed.errors).length) {
    const row = await decideTogether(ctx.services, ctx.db, ctx.caller, parsed.values as DecisionValues)
    if (row) {
      const { created, ...record } = row
      return { status: created ? 201 : 200, body: (await render(ctx, tagReviews, [record]))[0] }
    }
  }
  const { values, errors, scope } = await validateItems(
    ctx,
    tagReviews,
    [parsed],
    'create',
    null,
    ctx.caller.isAdmin
      ? undefined
      : (valid) => ({
          scope: tagReviews.scope,
          flag: 'write',
          rows: valid.map((v) => ({ tag_id: v.tag, user_id: ctx.caller.id })),
        }),
  )
  // a readable tag that the caller may not decide on: 403 before other field errors (docs/decisions.md §6)
  if (scope && !scope.allowed && !errors[0].tag && scope.keys.length) throw forbidden()
  if (hasErrors(errors)) throw badRequest(errors[0])
  // the checks passed now: the one statement refused a moment ago (the tag or a grant was changing)
  const row = await decideChecked(ctx.services.records, ctx.db, ctx.caller, values[0] as DecisionValues)
  if (!row) throw forbidden()
  const { created, ...record } = row
  return { status: created ? 201 : 200, body: (await render(ctx, tagReviews, [record]))[0] }
}

export const endpoints = () =>
  resourceEndpoints(tagReviews).map((ep) =>
    ep.doc?.actions.POST
      ? {
          ...ep,
          doc: {
            ...ep.doc,
            success: {
              POST: [
                { status: 201, description: 'Decided' },
                { status: 200, description: 'Decided again: the decision changed' },
              ],
            },
          },
        }
      : ep,
  )
