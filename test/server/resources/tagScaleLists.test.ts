import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { localTimestamp } from '../../../server/db/time.js'
import { EXPORT_STATEMENTS } from '../../../server/resources/tagSetExport.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary, makeMediaFile, makeTagClass, makeTagSet } from '../../helpers/records.js'

// tag/ read the fast ways (the rule checked once per tag set, kept counts, deep pages that seek or are read
// from the end: docs/decisions.md, "Lists at scale") must answer what a plain count(*) and OFFSET over the
// same rule answer, for every kind of caller and filter, on random data changed by every kind of write; and
// the kept counts (per set, class, media file, and per class and strength band) must equal count(*) after each write.

const API = '/api/v0'
const SIZE = 50
const t = suiteApp(test)

/** A small deterministic random source, so a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296
  }
}
const rand = random(35)
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]

let owner: TestUser, other: TestUser, setReader: TestUser, member: TestUser, admin: TestUser, stranger: TestUser
let lib: number, otherLib: number
let sets: number[] = []
let files: number[] = []
let classes: number[] = []
/** the media files and classes random tags are given: those not deleted yet */
let liveFiles: number[] = []
let liveClasses: number[] = []

test.before(async () => {
  owner = await t.user('scale-owner')
  other = await t.user('scale-other')
  setReader = await t.user('scale-set-reader')
  member = await t.user('scale-member')
  admin = await t.user('scale-admin', { admin: true })
  stranger = await t.user('scale-stranger')
  lib = await makeLibrary(t.db, owner)
  otherLib = await makeLibrary(t.db, other)
  files = [
    await makeMediaFile(t.db, owner, lib),
    await makeMediaFile(t.db, owner, lib),
    await makeMediaFile(t.db, owner, lib),
    await makeMediaFile(t.db, other, otherLib),
  ]
  classes = [
    await makeTagClass(t.db, owner, lib),
    await makeTagClass(t.db, owner, lib),
    await makeTagClass(t.db, other, otherLib),
  ]
  // owner's two sets in its library, other's set in its library and one in none
  sets = [
    await makeTagSet(t.db, owner, lib),
    await makeTagSet(t.db, owner, lib),
    await makeTagSet(t.db, other, otherLib),
    await makeTagSet(t.db, other, null),
  ]
  liveFiles = [...files]
  liveClasses = [...classes]
  await grant(t.db, other, { user: setReader.id }, { tagSet: sets[3] }, ['read'])
  const group = await makeGroup(t.db, owner, [member])
  await grant(t.db, owner, { group: group }, { library: lib }, ['read'])
  await insertRandom(sets[0], 2600)
  await insertRandom(sets[1], 1100)
  await insertRandom(sets[2], 1200)
  await insertRandom(sets[3], 300)
})

/** strengths at and around the edges of the review summary's bands, besides random ones */
const EDGE_STRENGTHS = [0, 0.1, 0.3, 0.7, 0.9, 0.99999, 1, 1.5, -0.25]
const randomStrength = () => (rand() < 0.5 ? pick(EDGE_STRENGTHS) : rand())

/** `n` tags of random class, media file, strength and flags in `set`, in one statement. */
async function insertRandom(set: number, n: number) {
  const now = localTimestamp()
  await t.db
    .insertInto('tags')
    .values(
      Array.from({ length: n }, () => ({
        user_id: owner.id,
        creation_date: now,
        tag_class_id: pick(liveClasses),
        tag_set_id: set,
        media_file_id: rand() < 0.5 ? liveFiles[0] : pick(liveFiles),
        start_time: Math.floor(rand() * 100),
        end_time: 200,
        min_frequency: 100,
        max_frequency: 2000,
        machine_tagged: rand() < 0.7,
        user_tagged: rand() < 0.2,
        strength: randomStrength(),
      })),
    )
    .execute()
}

/** The ids of the tags `as` may read (an independent statement of the rule: docs/decisions.md §6) under `where`, by id. */
async function expectedIds(as: TestUser, where: Record<string, number | boolean>): Promise<number[]> {
  let q = t.db.selectFrom('tags as r').select('r.id').orderBy('r.id')
  for (const [column, value] of Object.entries(where)) q = q.where(sql.ref(`r.${column}`), '=', value)
  if (as !== admin) {
    const mine = sql<number>`(select gm.group_id from app_user_group_users gm where gm.user_id = ${as.id})`
    const grantedTo = (type: string) => sql`(select p.target_id from app_permissions p where p.target_type = ${type}
      and (p.read or p.admin) and ((p.bearer_type = 'user' and p.bearer_id = ${as.id}) or (p.bearer_type = 'appusergroup' and p.bearer_id in ${mine})))`
    q = q.where(sql<boolean>`r.tag_set_id in (select s.id from tag_sets s where s.user_id = ${as.id}
      or s.library_id in (select l.id from libraries l where l.user_id = ${as.id}) or s.library_id in ${grantedTo('library')}
      or s.id in ${grantedTo('tagset')})`)
  }
  return (await q.execute()).map((r) => r.id)
}

const FILTER_COLUMNS: Record<string, string> = {
  tagSet: 'tag_set_id',
  tagClass: 'tag_class_id',
  mediaFile: 'media_file_id',
  machineTagged: 'machine_tagged',
  userTagged: 'user_tagged',
}

/** The filters asked of every caller: none, each pair the issue names, and single ones. */
function filterCases(): Array<Record<string, number | boolean>> {
  const [s, c, f] = [sets[0], classes[0], files[0]]
  return [
    {},
    { tagSet: s },
    { tagSet: s, tagClass: c },
    { tagSet: s, mediaFile: f },
    { tagSet: s, machineTagged: true },
    { tagSet: s, machineTagged: false },
    { tagSet: s, userTagged: true },
    { mediaFile: f },
    { mediaFile: f, tagClass: c },
    { tagSet: sets[2] },
    { tagSet: sets[3], tagClass: classes[2] },
  ]
}

async function assertListsAsPlainQueries(round: string) {
  for (const as of [owner, other, setReader, member, admin, stranger]) {
    for (const filters of filterCases()) {
      const ids = await expectedIds(
        as,
        Object.fromEntries(Object.entries(filters).map(([k, v]) => [FILTER_COLUMNS[k], v])),
      )
      const pages = Math.max(1, Math.ceil(ids.length / SIZE))
      const qs = Object.entries(filters)
        .map(([k, v]) => `${k}=${v}`)
        .join('&')
      // deep pages twice: the second may seek to where the first was found
      for (const page of <Array<number | 'last'>>[
        1,
        2,
        21,
        22,
        21,
        22,
        Math.floor(pages / 4) + 1,
        Math.floor(pages / 2) + 1,
        pages,
        'last',
        'last',
        pages - 1,
      ]) {
        const number = page === 'last' ? pages : page
        if (number < 1 || number > pages) continue
        const what = `${round}: ${as.username} ${qs} page ${page}`
        const res = await t.call('GET', `${API}/tag/?${qs}&page_size=${SIZE}&page=${page}`, { as })
        assert.is(res.statusCode, 200, `${what}: ${res.body}`)
        assert.is(res.data.count, ids.length, what)
        assert.equal(
          res.data.results.map((r: { id: number }) => r.id),
          ids.slice((number - 1) * SIZE, number * SIZE),
          what,
        )
        assert.is(res.data.next === null, number === pages, what)
        assert.is(res.data.previous === null, number === 1, what)
      }
      const past = await t.call('GET', `${API}/tag/?${qs}&page_size=${SIZE}&page=${pages + 1}`, { as })
      assert.is(past.statusCode, 404, `${round}: ${as.username} ${qs} past the last page`)
    }
  }
}

/** Every kept count (per tag set, per class in a set, per media file in a set) equals count(*). */
async function assertKeptExact(round: string) {
  const kept = async (table: 'tag_set_tag_counts' | 'tag_class_counts' | 'tag_file_counts', column: string | null) =>
    (
      await sql<{
        k: string
        n: string
      }>`select tag_set_id || ':' || ${column ? sql.ref(column) : sql.lit('')} as k, sum(delta) as n
      from ${sql.table(table)} group by 1 having sum(delta) <> 0 order by 1`.execute(t.db)
    ).rows.map((r) => `${r.k}=${r.n}`)
  const counted = async (column: string | null) =>
    (
      await sql<{
        k: string
        n: string
      }>`select tag_set_id || ':' || ${column ? sql.ref(column) : sql.lit('')} as k, count(*) as n
      from tags group by 1 order by 1`.execute(t.db)
    ).rows.map((r) => `${r.k}=${r.n}`)
  assert.equal(await kept('tag_set_tag_counts', null), await counted(null), `${round}: per tag set`)
  const flags = async (kept: boolean) =>
    (
      await sql<{ k: string }>`select tag_set_id || ':' || ${
        kept
          ? sql`sum(machine_delta) || ':' || sum(user_delta) from tag_set_tag_counts group by tag_set_id having sum(delta) <> 0`
          : sql`count(*) filter (where machine_tagged) || ':' || count(*) filter (where user_tagged) from tags group by tag_set_id`
      } order by 1`.execute(t.db)
    ).rows.map((r) => r.k)
  assert.equal(await flags(true), await flags(false), `${round}: machine- and user-tagged per tag set`)
  assert.equal(await kept('tag_class_counts', 'tag_class_id'), await counted('tag_class_id'), `${round}: per class`)
  assert.equal(
    await kept('tag_file_counts', 'media_file_id'),
    await counted('media_file_id'),
    `${round}: per media file`,
  )
  // the per-file rows have no foreign keys (migration 2026_11_29_3501): those of a deleted file or tag set go with it all the same
  const orphans = await sql<{
    n: string
  }>`select count(*) as n from tag_file_counts k where not exists (select 1 from media_files f where f.id = k.media_file_id)
    or not exists (select 1 from tag_sets s where s.id = k.tag_set_id)`.execute(t.db)
  assert.is(Number(orphans.rows[0].n), 0, `${round}: per-file count rows of deleted media files or tag sets`)
  // the review summary's ten bands, written out here on their own: [0, 0.1) … [0.9, 1], below 0 in the first, 1 and up in the last
  const band = sql`case when strength >= 1 then 9 when strength < 0 then 0 else floor(strength * 10)::integer end`
  const keptBands = (
    await sql<{ k: string }>`select tag_set_id || ':' || tag_class_id || ':' || band || '=' || sum(delta) as k
    from tag_band_counts group by tag_set_id, tag_class_id, band having sum(delta) <> 0 order by 1`.execute(t.db)
  ).rows.map((r) => r.k)
  const countedBands = (
    await sql<{ k: string }>`select tag_set_id || ':' || tag_class_id || ':' || ${band} || '=' || count(*) as k
    from tags group by tag_set_id, tag_class_id, ${band} order by 1`.execute(t.db)
  ).rows.map((r) => r.k)
  assert.equal(keptBands, countedBands, `${round}: per class and strength band`)
}

const body = (set: number) => ({
  tagSet: set,
  mediaFile: files[1],
  tagClass: classes[1],
  startTime: 1,
  endTime: 2,
  minFrequency: 100,
  maxFrequency: 2000,
})

test('as written: every caller and filter answers as count(*) and OFFSET over the rule', async () => {
  await assertKeptExact('seeded')
  await assertListsAsPlainQueries('seeded')
})

test('single and bulk creates, updates that move a tag, deletes: kept counts exact, lists as plain queries', async () => {
  const one = await t.call('POST', `${API}/tag/`, { as: owner, body: body(sets[0]) })
  assert.is(one.statusCode, 201, one.body)
  await assertKeptExact('single create')
  // a strength is never null: omitted it is 0 (the first band, as above), null is refused
  const nothing = await t.call('POST', `${API}/tag/`, { as: owner, body: { ...body(sets[0]), strength: null } })
  assert.equal([nothing.statusCode, nothing.data], [400, { strength: ['This field may not be null.'] }])
  const bulk = await t.call('POST', `${API}/tag/`, {
    as: owner,
    body: Array.from({ length: 30 }, (_, i) => ({ ...body(sets[0]), startTime: i, endTime: i + 1 })),
  })
  assert.is(bulk.statusCode, 201, bulk.body)
  await assertKeptExact('bulk create')
  const ids: number[] = bulk.data.map((r: { id: number }) => r.id)
  for (const [i, change] of [
    { tagClass: classes[0] },
    { mediaFile: files[0] },
    { tagSet: sets[1] },
    { tagClass: classes[0], mediaFile: files[2] },
    { machineTagged: true },
    { userTagged: true, tagSet: sets[1] },
    { strength: 0.95 },
    { strength: 1 },
    { strength: 0.05, tagClass: classes[0] },
    { strength: 0.55, tagSet: sets[1] },
    { strength: 0.51 },
  ].entries()) {
    const res = await t.call('PATCH', `${API}/tag/${ids[i]}/`, { as: owner, body: change })
    assert.is(res.statusCode, 200, `${JSON.stringify(change)}: ${res.body}`)
    await assertKeptExact(`update ${JSON.stringify(change)}`)
  }
  // an update of many tags in one statement, moving them between classes both ways
  await t.db
    .updateTable('tags')
    .set({
      machine_tagged: sql<boolean>`not machine_tagged`,
      tag_class_id: sql<number>`case when tag_class_id = ${classes[0]} then ${classes[1]}::integer else ${classes[0]}::integer end`,
    })
    .where('tag_set_id', '=', sets[0])
    .where('tag_class_id', 'in', [classes[0], classes[1]])
    .where('start_time', '<', 10)
    .execute()
  await assertKeptExact('bulk update')
  // strengths moved in one statement: some to another band, some within theirs, some to the last band's edge
  await t.db
    .updateTable('tags')
    .set({
      strength: sql<number>`case when id % 3 = 0 then 1 - strength when id % 3 = 1 then strength * 0.999 else 1 end`,
    })
    .where('tag_set_id', 'in', [sets[0], sets[2]])
    .where('start_time', '<', 30)
    .execute()
  await assertKeptExact('bulk update of strengths')
  assert.is((await t.call('DELETE', `${API}/tag/${ids[10]}/`, { as: owner })).statusCode, 204)
  await t.db.deleteFrom('tags').where('tag_set_id', '=', sets[0]).where('start_time', '=', 50).execute()
  await assertKeptExact('deletes')
  await assertListsAsPlainQueries('after writes')
})

test('cascades from deleting a media file, a class, a tag set and a library keep counts exact', async () => {
  await t.db.deleteFrom('media_files').where('id', '=', files[2]).execute()
  liveFiles = liveFiles.filter((f) => f !== files[2])
  await assertKeptExact('media file deleted')
  await t.db.deleteFrom('tag_classes').where('id', '=', classes[1]).execute()
  liveClasses = liveClasses.filter((c) => c !== classes[1])
  await assertKeptExact('class deleted')
  assert.is((await t.call('DELETE', `${API}/tagSet/${sets[1]}/`, { as: owner })).statusCode, 204)
  await assertKeptExact('tag set deleted')
  await assertListsAsPlainQueries('after cascades')
  // grants change who reads what: the remembered pages must not
  await t.db.deleteFrom('app_user_group_users').where('user_id', '=', member.id).execute()
  await grant(t.db, other, { user: member.id }, { library: otherLib }, ['read'])
  await t.db.deleteFrom('libraries').where('id', '=', otherLib).execute()
  liveFiles = liveFiles.filter((f) => f !== files[3])
  liveClasses = liveClasses.filter((c) => c !== classes[2])
  await assertKeptExact('library deleted')
  await insertRandom(sets[0], 40)
  await assertKeptExact('more tags')
  await assertListsAsPlainQueries('after the library and grants changed')
})

test('tagSet/{id}/tags.ndjson answers every tag of the set, as tag/ writes them, in id order, to its readers only', async () => {
  // more than two batches of the server's (5,000 tags), read by a grantee of the tag set
  await grant(t.db, owner, { user: setReader.id }, { tagSet: sets[0] }, ['read'])
  for (let i = 0; i < 4; i++) await insertRandom(sets[0], 3000)
  const listed: unknown[] = []
  for (let page = 1; ; page++) {
    const res = await t.call('GET', `${API}/tagSet/${sets[0]}/tags/?page_size=1000&page=${page}`, { as: setReader })
    listed.push(...res.data.results)
    if (!res.data.next) break
  }
  const res = await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson`, { as: setReader })
  assert.is(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /^application\/x-ndjson/)
  assert.is(Number(res.headers['x-total-count']), listed.length)
  const lines = res.body.split('\n')
  assert.is(lines.pop(), '', 'every line ends with a newline')
  assert.equal(
    lines.map((l: string) => JSON.parse(l)),
    listed,
  )
  // six exports at once share EXPORT_STATEMENTS connections (the rest of the pool stays for other requests):
  // each answers the whole set, none is refused, and a list read meanwhile answers too
  const permits = t.app.services.exportPermits
  let most = 0
  const watch = setInterval(() => {
    most = Math.max(most, permits.inUse)
  }, 1)
  const [list, ...many] = await Promise.all([
    t.call('GET', `${API}/tag/?tagSet=${sets[0]}`, { as: setReader }),
    ...Array.from({ length: 6 }, () => t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson`, { as: setReader })),
  ]).finally(() => clearInterval(watch))
  assert.is(list.statusCode, 200)
  for (const each of many) assert.equal([each.statusCode, each.body === res.body], [200, true])
  assert.ok(most <= EXPORT_STATEMENTS, `${most} export statements at once`)
  assert.is(permits.inUse, 0)
  assert.is((await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson`, { as: stranger })).statusCode, 404)
  assert.is((await t.call('GET', `${API}/tagSet/2000000000/tags.ndjson`, { as: admin })).statusCode, 404)
})

test('tagSet/{id}/tags.ndjson?fields= keeps only the fields named, in the record order; an unknown field is a 400', async () => {
  const whole = await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson`, { as: setReader })
  const records = whole.body
    .trimEnd()
    .split('\n')
    .map((l: string) => JSON.parse(l) as Record<string, unknown>)
  assert.ok(records.length > 10_000, 'the tags of the test before: more than two batches')
  const res = await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson?fields=strength,mediaFile,startTime`, {
    as: setReader,
  })
  assert.is(res.statusCode, 200)
  assert.is(Number(res.headers['x-total-count']), records.length)
  const lines = res.body.split('\n')
  assert.is(lines.pop(), '')
  const picked = lines.map((l: string) => JSON.parse(l) as Record<string, unknown>)
  assert.equal(
    picked,
    records.map((r) => ({ mediaFile: r.mediaFile, startTime: r.startTime, strength: r.strength })),
    'the same values',
  )
  assert.equal(Object.keys(picked[0]), ['mediaFile', 'startTime', 'strength'], 'in the order of the record')
  const unknown = await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson?fields=id,colour`, { as: setReader })
  assert.is(unknown.statusCode, 400)
  assert.equal(unknown.data, { fields: ['"colour" is not a field of Tag records.'] })
  const blank = await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson?fields=`, { as: setReader })
  assert.equal([blank.statusCode, blank.data], [400, { fields: ['This field may not be blank.'] }])
  const hidden = await t.call('GET', `${API}/tagSet/${sets[0]}/tags.ndjson?fields=id`, { as: stranger })
  assert.is(hidden.statusCode, 404, 'fields= does not open a set to who may not read it')
})

test('tagSet/{id}/tags.ndjson of a set of exactly two batches, or of none, answers its tags and nothing more, a batch in two statements', async () => {
  const ids = async (set: number) =>
    (await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', set).orderBy('id').execute()).map((r) => r.id)
  const [two, none] = [await makeTagSet(t.db, owner, lib), await makeTagSet(t.db, owner, lib)]
  await insertRandom(two, 5000)
  await insertRandom(two, 5000)
  const before = t.database.statements.sent
  const res = await t.call('GET', `${API}/tagSet/${two}/tags.ndjson?fields=id`, { as: owner })
  const sent = t.database.statements.sent - before
  assert.is(res.statusCode, 200)
  assert.is(res.body, (await ids(two)).map((id) => `{"id":${id}}\n`).join(''))
  // the caller and the set read, the count, then for each batch its end and its COPY, and the end found after the last
  assert.ok(sent <= 8, `${sent} statements`)
  const empty = await t.call('GET', `${API}/tagSet/${none}/tags.ndjson`, { as: owner })
  assert.equal([empty.statusCode, empty.body, empty.headers['x-total-count']], [200, '', '0'])
})

test("tagSet/{id}/reviews.ndjson answers every decision on the set's tags, as tagReview/ writes them, a tag's together, to its readers only", async () => {
  const ids = async (set: number) =>
    (await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', set).orderBy('id').execute()).map((r) => r.id)
  const [decided, none] = [await makeTagSet(t.db, owner, lib), await makeTagSet(t.db, owner, lib)]
  await insertRandom(decided, 4000)
  const tagIds = await ids(decided)
  // more than a batch of the server's (5,000 rows): two reviewers on most tags, one on the rest, the second
  // reviewer's decisions written later so that a tag's decisions are not next to each other by id
  const now = localTimestamp()
  const decide = (user: TestUser, tagsOf: number[], from: number) =>
    t.db
      .insertInto('tag_reviews')
      .values(
        tagsOf.map((tag, i) => ({
          tag_id: tag,
          user_id: user.id,
          decision: (['yes', 'no', 'unsure', 'skip'] as const)[(i + from) % 4],
          tag_class_id: (i + from) % 4 === 1 ? liveClasses[0] : null,
          note: i % 7 === 0 ? `note "${i}"\twith\\ a tab` : '',
          creation_date: now,
          tag_set_id: decided,
        })),
      )
      .execute()
  await decide(owner, tagIds, 0)
  await decide(member, tagIds.slice(0, 3000).reverse(), 1)
  await grant(t.db, owner, { user: setReader.id }, { tagSet: decided }, ['read'])
  const listed: Array<{ id: number; tag: number }> = []
  for (let page = 1; ; page++) {
    const res = await t.call('GET', `${API}/tagReview/?tagSet=${decided}&page_size=1000&page=${page}`, {
      as: setReader,
    })
    listed.push(...res.data.results)
    if (!res.data.next) break
  }
  assert.is(listed.length, 7000)
  const res = await t.call('GET', `${API}/tagSet/${decided}/reviews.ndjson`, { as: setReader })
  assert.is(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /^application\/x-ndjson/)
  assert.is(Number(res.headers['x-total-count']), listed.length)
  const lines = res.body.split('\n')
  assert.is(lines.pop(), '', 'every line ends with a newline')
  const streamed = lines.map((l: string) => JSON.parse(l) as { id: number; tag: number })
  const byTag = [...listed].sort((a, b) => a.tag - b.tag || a.id - b.id)
  assert.equal(streamed, byTag, "the records of tagReview/, in the order of their tags, a tag's by id")
  const picked = await t.call('GET', `${API}/tagSet/${decided}/reviews.ndjson?fields=tag,decision`, { as: setReader })
  assert.equal(
    picked.body
      .trimEnd()
      .split('\n')
      .map((l: string) => JSON.parse(l)),
    byTag.map((r) => ({ tag: r.tag, decision: (r as unknown as { decision: string }).decision })),
  )
  const unknown = await t.call('GET', `${API}/tagSet/${decided}/reviews.ndjson?fields=tag,colour`, { as: setReader })
  assert.equal(
    [unknown.statusCode, unknown.data],
    [400, { fields: ['"colour" is not a field of Tag Review records.'] }],
  )
  const empty = await t.call('GET', `${API}/tagSet/${none}/reviews.ndjson`, { as: owner })
  assert.equal([empty.statusCode, empty.body, empty.headers['x-total-count']], [200, '', '0'])
  assert.is((await t.call('GET', `${API}/tagSet/${decided}/reviews.ndjson`, { as: stranger })).statusCode, 404)
  assert.is((await t.call('GET', `${API}/tagSet/2000000000/reviews.ndjson`, { as: admin })).statusCode, 404)
})

test.run()
