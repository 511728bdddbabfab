import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { foldCrowdedBandCounts, tagsByBand } from '../../../server/analysis/bandCounts.js'
import { reviewQueue } from '../../../server/analysis/reviewQueue.js'
import { estimatePrecision, reviewedTags, wilson } from '../../../server/analysis/reviews.js'
import { localTimestamp } from '../../../server/db/time.js'
import { sql } from 'kysely'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeRoleWorld, statusMatrix, type RoleCallers } from '../../helpers/world.js'
import { makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'

const API = '/api/v0'
const t = suiteApp(test)
let c: RoleCallers
let lib: number
let mediaFile: number

test.before(async () => {
  ;({ callers: c, library: lib, mediaFile } = await makeRoleWorld(t, 'rq'))
})

const near = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-6, `${what}: ${a} is not ${b}`)
const band = (s: number) => Math.min(Math.floor(s * 10), 9)

/** A tag set of the owner with a tag of `tagClass` at each strength. */
async function tagSetWith(
  strengths: number[],
  tagClass?: number,
): Promise<{ tagSet: number; tagClass: number; ids: number[] }> {
  const tagSet = await makeTagSet(t.db, c.owner, lib)
  tagClass ??= await makeTagClass(t.db, c.owner, lib)
  const ids: number[] = []
  for (const strength of strengths)
    ids.push(await makeTag(t.db, c.owner, { tagSet, mediaFile, tagClass }, { strength }))
  return { tagSet, tagClass, ids }
}

const decide = (who: TestUser, tag: number, decision: string, tagClass: number | null = null) =>
  t.db
    .insertInto('tag_reviews')
    .values({
      tag_id: tag,
      user_id: who.id,
      decision: decision as 'yes',
      tag_class_id: tagClass,
      creation_date: localTimestamp(),
    })
    .execute()

const queue = async (tagSet: number, q = '', as: TestUser = c.owner) => {
  const res = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/${q}`, { as })
  assert.is(res.statusCode, 200, JSON.stringify(res.data))
  return res.data.results as Array<{
    id: number
    strength: number
    tagClass: number
    mediaFile: number
    startTime: number
  }>
}

test('the strata queue draws evenly from every strength band', async () => {
  // ten tags in each band, and many more in the top band
  const strengths = [...Array.from({ length: 100 }, (_, i) => i / 100), ...Array.from({ length: 200 }, () => 0.95)]
  const { tagSet } = await tagSetWith(strengths)
  for (let round = 0; round < 3; round++) {
    const got = await queue(tagSet, '?n=20')
    assert.is(got.length, 20)
    assert.is(new Set(got.map((r) => r.id)).size, 20)
    const perBand = Array.from({ length: 10 }, (_, b) => got.filter((r) => band(r.strength) === b).length)
    assert.equal(perBand, Array(10).fill(2), `round ${round}`)
  }
  // a band with fewer tags than its share leaves the rest to the others
  const sparse = await tagSetWith([0.05, 0.5, 0.51, 0.52, 0.53, 0.54, 0.55])
  assert.equal((await queue(sparse.tagSet, '?n=5')).map((r) => r.strength).includes(0.05), true)
  assert.is((await queue(sparse.tagSet, '?n=20')).length, 7)
})

test('the strata queue puts a tag in the band the summary counts it in: edges, 1 and above, below 0, NaN, infinities', async () => {
  // 0.8999999999999999 times 10 is 9 in floating point: band 9 for tag_strength_band, below 0.9 for a comparison
  const strengths = [-Infinity, -0.5, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.8999999999999999, 1, 1.5, Infinity, NaN]
  const { tagSet, ids } = await tagSetWith(strengths)
  const bandOf = new Map(
    (
      await t.db
        .selectFrom('tags')
        .where('tag_set_id', '=', tagSet)
        .select(['id', sql<number>`tag_strength_band(strength)`.as('band')])
        .execute()
    ).map((r) => [r.id, r.band]),
  )
  // every tag is in the queue, in the bands the summary's counts hold
  const all = await reviewQueue(t.db, { tagSet, reviewer: c.owner.id, n: 100, strategy: 'strata', overlap: false })
  assert.equal(
    all.map((r) => r.id).sort((a, b) => a - b),
    ids,
  )
  const counted = (await tagsByBand(t.db, tagSet)).map((r) => [r.band, r.tags])
  const queued = Array.from({ length: 10 }, (_, b) => [b, all.filter((r) => bandOf.get(r.id) === b).length]).filter(
    ([, n]) => n,
  )
  assert.equal(queued, counted)
  // one tag of each band, wherever in its band the draw starts (a start just below an edge takes the tag there)
  for (const start of [0, 0.5, 0.99, 0.9999999]) {
    const ten = await reviewQueue(t.db, {
      tagSet,
      reviewer: c.owner.id,
      n: 10,
      strategy: 'strata',
      overlap: false,
      random: () => start,
    })
    assert.equal(
      ten.map((r) => bandOf.get(r.id)).sort((a, b) => a! - b!),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      `start ${start}`,
    )
  }
})

test('top, uncertain and random; decided tags leave the queue; overlap and filters', async () => {
  const { tagSet, ids } = await tagSetWith([0.1, 0.3, 0.45, 0.58, 0.75, 0.9, 0.99])
  assert.equal(
    (await queue(tagSet, '?strategy=top&n=3')).map((r) => r.strength),
    [0.99, 0.9, 0.75],
  )
  assert.equal(
    (await queue(tagSet, '?strategy=uncertain&n=3')).map((r) => r.strength),
    [0.45, 0.58, 0.3],
  )
  const random = await queue(tagSet, '?strategy=random&n=5')
  assert.is(new Set(random.map((r) => r.id)).size, 5)
  assert.is((await queue(tagSet, '?strategy=random&n=50')).length, 7)
  // the owner skips the strongest; the writer decides the next
  await decide(c.owner, ids[6], 'skip')
  await decide(c.writer, ids[5], 'yes')
  assert.equal(
    (await queue(tagSet, '?strategy=top&n=2')).map((r) => r.strength),
    [0.75, 0.58],
  )
  assert.equal(
    (await queue(tagSet, '?strategy=top&n=2&overlap=true')).map((r) => r.strength),
    [0.9, 0.75],
  )
  // a skip by another reviewer leaves the tag to everybody else
  assert.equal(
    (await queue(tagSet, '?strategy=top&n=1', c.member)).map((r) => r.strength),
    [0.99],
  )
  assert.equal(
    (await queue(tagSet, '?strategy=top&minStrength=0.2&maxStrength=0.6')).map((r) => r.strength),
    [0.58, 0.45, 0.3],
  )
  const other = await makeTagClass(t.db, c.owner, lib)
  const otherFile = await makeMediaFile(t.db, c.owner, lib)
  const odd = await makeTag(t.db, c.owner, { tagSet, mediaFile: otherFile, tagClass: other }, { strength: 0.2 })
  assert.equal(
    (await queue(tagSet, `?tagClass=${other}`)).map((r) => r.id),
    [odd],
  )
  assert.equal(
    (await queue(tagSet, `?mediaFile=${otherFile}&strategy=uncertain`)).map((r) => r.id),
    [odd],
  )
})

test('top: tags of equal strength in id order, among thousands of a few strengths (the index holds the strength alone)', async () => {
  const tagSet = await makeTagSet(t.db, c.owner, lib)
  const tagClass = await makeTagClass(t.db, c.owner, lib)
  const strengths = Array.from({ length: 3000 }, (_, i) => [0.2, 0.8, 0.4, 0.6][(i * 7) % 4])
  const now = localTimestamp()
  const ids = (
    await t.db
      .insertInto('tags')
      .values(
        strengths.map((strength, i) => ({
          user_id: c.owner.id,
          creation_date: now,
          tag_class_id: tagClass,
          tag_set_id: tagSet,
          media_file_id: mediaFile,
          start_time: i / 10,
          end_time: i / 10 + 0.05,
          min_frequency: 100,
          max_frequency: 2000,
          strength,
          machine_tagged: true,
        })),
      )
      .returning('id')
      .execute()
  ).map((r) => r.id)
  await sql`analyze tags`.execute(t.db)
  const strongest = ids.filter((_id, i) => strengths[i] === 0.8).sort((a, b) => a - b)
  assert.equal(
    (await queue(tagSet, '?strategy=top&n=60')).map((r) => r.id),
    strongest.slice(0, 60),
  )
  const top = await reviewQueue(t.db, { tagSet, reviewer: c.owner.id, strategy: 'top', n: 800, overlap: true })
  const next = ids.filter((_id, i) => strengths[i] === 0.6).sort((a, b) => a - b)
  assert.equal(
    top.map((r) => r.id),
    [...strongest, ...next].slice(0, 800),
  )
})

test('uncertain: the tags the model is least sure of first, a strength that is no number last (in top too); the default order is strata', async () => {
  // a discovery strength is the probability that the window is a call: 0.5 is where the model is least sure
  // (the tag without a number made first: sorted by id it would come first)
  const { tagSet, ids } = await tagSetWith([NaN, 0.95, 0.52, 0.1, 0.45, 0.7])
  const res = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/?strategy=uncertain`, { as: c.owner })
  assert.is(res.statusCode, 200)
  assert.is(res.data.strategy, 'uncertain')
  // NaN is null in JSON
  assert.equal(
    res.data.results.map((r: { strength: number | null }) => r.strength),
    [0.52, 0.45, 0.7, 0.1, 0.95, null],
  )
  assert.equal(
    res.data.results.map((r: { id: number }) => r.id),
    [2, 4, 5, 3, 1, 0].map((i) => ids[i]),
  )
  assert.equal(
    (await queue(tagSet, '?strategy=uncertain&n=2')).map((r) => r.strength),
    [0.52, 0.45],
  )
  // top too has it last, though NaN is the greatest float8 in PostgreSQL's order
  assert.equal(
    (await queue(tagSet, '?strategy=top')).map((r) => r.strength),
    [0.95, 0.7, 0.52, 0.45, 0.1, null],
  )
  // a tag decided by the caller leaves it; by another reviewer too, unless overlap; the filters apply
  await decide(c.owner, ids[2], 'yes')
  await decide(c.writer, ids[4], 'no')
  assert.equal(
    (await queue(tagSet, '?strategy=uncertain&n=2')).map((r) => r.strength),
    [0.7, 0.1],
  )
  assert.equal(
    (await queue(tagSet, '?strategy=uncertain&n=2&overlap=true')).map((r) => r.strength),
    [0.45, 0.7],
  )
  assert.equal(
    (await queue(tagSet, '?strategy=uncertain&minStrength=0.6')).map((r) => r.strength),
    [0.7, 0.95, null],
  )
  // ties at the same distance from 0.5 go by id
  const tied = await tagSetWith([0.75, 0.25, 0.75, Infinity, 0.25, -Infinity])
  assert.equal(
    (await queue(tied.tagSet, '?strategy=uncertain')).map((r) => r.id),
    [0, 1, 2, 4, 3, 5].map((i) => tied.ids[i]),
  )
  // without a strategy, the queue is the strata queue, as before
  const plain = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/`, { as: c.owner })
  assert.is(plain.data.strategy, 'strata')
  assert.equal(
    plain.data.results.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b),
    [0, 1, 3, 5].map((i) => ids[i]),
  )
  // a strategy it does not have is refused, naming those it has
  const bad = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/?strategy=confident`, { as: c.owner })
  assert.equal(
    [bad.statusCode, bad.data],
    [400, { strategy: ['"confident" is not a valid choice: strata, top, uncertain or random.'] }],
  )
  // order is another name for strategy: the same order, the same refusal naming order; both given must agree
  const byOrder = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/?order=uncertain`, { as: c.owner })
  const byStrategy = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/?strategy=uncertain`, { as: c.owner })
  assert.equal([byOrder.statusCode, byOrder.data.strategy], [200, 'uncertain'])
  assert.equal(
    byOrder.data.results.map((r: { id: number }) => r.id),
    byStrategy.data.results.map((r: { id: number }) => r.id),
  )
  assert.equal(
    byOrder.data.results.map((r: { strength: number | null }) => r.strength),
    [0.7, 0.1, 0.95, null],
  )
  const badOrder = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/?order=bogus`, { as: c.owner })
  assert.equal(
    [badOrder.statusCode, badOrder.data],
    [400, { order: ['"bogus" is not a valid choice: strata, top, uncertain or random.'] }],
  )
  assert.equal(
    (await queue(tagSet, '?order=top&strategy=top&n=2')).map((r) => r.strength),
    [0.95, 0.7],
  )
  const both = await t.call('GET', `${API}/tagSet/${tagSet}/reviewQueue/?strategy=uncertain&order=top`, { as: c.owner })
  assert.equal(
    [both.statusCode, both.data],
    [400, { non_field_errors: ['Give strategy or order, not both: "uncertain" and "top" differ.'] }],
  )
  // the OpenAPI document declares the queue's parameters
  const openapi = (await t.call('GET', '/api/openapi.json', { as: c.owner })).data
  const parameters = openapi.paths['/api/v0/tagSet/{id}/reviewQueue/'].get.parameters as Array<{
    name: string
    schema: { enum?: string[] }
  }>
  assert.equal(
    parameters.map((p) => p.name),
    ['id', 'n', 'strategy', 'order', 'overlap', 'tagClass', 'mediaFile', 'minStrength', 'maxStrength'],
  )
  for (const name of ['strategy', 'order'])
    assert.equal(parameters.find((p) => p.name === name)!.schema.enum, ['strata', 'top', 'uncertain', 'random'])
})

test('the queue and summary: readers of the tag set only, bad parameters named', async () => {
  const { tagSet } = await tagSetWith([0.5])
  for (const part of ['reviewQueue', 'reviewSummary']) {
    await statusMatrix(
      t,
      c,
      { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
      async () => ({ method: 'GET', url: `${API}/tagSet/${tagSet}/${part}/` }),
    )
  }
  const bad = await t.call(
    'GET',
    `${API}/tagSet/${tagSet}/reviewQueue/?n=0&strategy=best&overlap=maybe&minStrength=x`,
    { as: c.owner },
  )
  assert.is(bad.statusCode, 400)
  assert.equal(Object.keys(bad.data).sort(), ['minStrength', 'n', 'overlap', 'strategy'])
  assert.is((await t.call('GET', `${API}/tagSet/abc/reviewQueue/`, { as: c.owner })).statusCode, 404)
})

test('Wilson interval and the post-stratified estimate, by hand', () => {
  // 3 of 5: the textbook interval
  const w = wilson(3, 5)!
  assert.ok(Math.abs(w.low - 0.2307) < 1e-4 && Math.abs(w.high - 0.8824) < 1e-4, `${w.low} ${w.high}`)
  assert.is(wilson(0, 0), null)
  const empty = { tags: 0, yes: 0, no: 0, unsure: 0 }
  const counts = Array.from({ length: 10 }, () => ({ ...empty }))
  counts[1] = { tags: 60, yes: 1, no: 4, unsure: 0 }
  counts[5] = { tags: 30, yes: 3, no: 2, unsure: 0 }
  counts[9] = { tags: 10, yes: 4, no: 0, unsure: 0 }
  const e = estimatePrecision(counts)
  near(e.thresholds[0].precision, (60 * 0.2 + 30 * 0.6 + 10 * 1) / 100, 'all tags')
  // weighted by the tags of each band, not by the decisions: (3 + 4) / 9 decided would say 0.78
  near(e.thresholds[5].precision, (30 * 0.6 + 10 * 1) / 40, 'above 0.5')
  assert.equal(e.at90, { threshold: 0.6, tags: 10 })
  assert.is(e.bands[0].precision, null)
})

test('the summary of a tag set, against a hand-computed example', async () => {
  const strengths = [...Array(60).fill(0.15), ...Array(30).fill(0.55), 0.75, ...Array(10).fill(0.95)]
  const a = await tagSetWith(strengths)
  const b1 = a.ids.slice(0, 60)
  const b5 = a.ids.slice(60, 90)
  const b7 = a.ids[90]
  const b9 = a.ids.slice(91)
  const classB = await makeTagClass(t.db, c.owner, lib, 'classB')
  await makeTag(t.db, c.owner, { tagSet: a.tagSet, mediaFile, tagClass: classB }, { strength: 0.3 })
  // band 1: 1 yes, 4 no (one naming class B), one skip; band 5: 3 yes, 2 no
  await decide(c.owner, b1[0], 'yes')
  for (const id of b1.slice(1, 5)) await decide(c.owner, id, 'no', id === b1[1] ? classB : null)
  await decide(c.owner, b1[5], 'skip')
  for (const id of b5.slice(0, 3)) await decide(c.owner, id, 'yes')
  for (const id of b5.slice(3, 5)) await decide(c.owner, id, 'no')
  // band 7: a tie, unsure; band 9: four yes, one of them 2:1, one 2:0
  await decide(c.owner, b7, 'yes')
  await decide(c.writer, b7, 'no')
  await decide(c.owner, b9[0], 'yes')
  await decide(c.writer, b9[0], 'yes')
  await decide(c.member, b9[0], 'no')
  await decide(c.owner, b9[1], 'yes')
  await decide(c.writer, b9[1], 'yes')
  await decide(c.owner, b9[2], 'yes')
  await decide(c.owner, b9[3], 'yes')

  const s = (await t.call('GET', `${API}/tagSet/${a.tagSet}/reviewSummary/`, { as: c.reader })).data
  assert.equal([s.tags, s.decidedTags, s.reviewedByMany, s.disagreements], [102, 15, 3, 2])
  near(s.disagreementRate, 2 / 3, 'disagreement')
  assert.equal(
    s.classes.map((k: any) => k.tagClass),
    [a.tagClass, classB],
  )
  const k = s.classes[0]
  assert.equal(
    [k.tags, k.decisions, k.consensus],
    [101, { yes: 11, no: 8, unsure: 0, skip: 1 }, { yes: 8, no: 6, unsure: 1 }],
  )
  assert.equal(k.bands[5], {
    min: 0.5,
    max: 0.6,
    tags: 30,
    yes: 3,
    no: 2,
    unsure: 0,
    precision: 0.6,
    low: k.bands[5].low,
    high: k.bands[5].high,
  })
  near(k.bands[5].low, wilson(3, 5)!.low, 'band 5 low')
  assert.equal(k.bands[7], {
    min: 0.7,
    max: 0.8,
    tags: 1,
    yes: 0,
    no: 0,
    unsure: 1,
    precision: null,
    low: null,
    high: null,
  })
  near(k.thresholds[0].precision, 0.4, 'from 0')
  assert.equal([k.thresholds[0].tags, k.thresholds[0].unestimatedTags], [101, 1])
  near(k.thresholds[3].precision, 0.7, 'from 0.3')
  assert.equal([k.thresholds[6].precision, k.thresholds[6].tags, k.thresholds[8].tags], [1, 11, 10])
  assert.equal(
    [k.at90, k.at95],
    [
      { threshold: 0.6, tags: 11 },
      { threshold: 0.6, tags: 11 },
    ],
  )
  assert.equal([s.classes[1].tags, s.classes[1].at90, s.classes[1].thresholds[0].precision], [1, null, null])
  // the counts by band are kept by the tags' triggers: a new tag is counted at once, and so is an edit of its strength
  const added = await makeTag(t.db, c.owner, { tagSet: a.tagSet, mediaFile, tagClass: classB }, { strength: 0.95 })
  const after = (await t.call('GET', `${API}/tagSet/${a.tagSet}/reviewSummary/`, { as: c.reader })).data
  assert.equal([after.tags, after.classes[1].tags, after.classes[1].bands[9].tags], [103, 2, 1])
  assert.is((await t.call('PATCH', `${API}/tag/${added}/`, { as: c.owner, body: { strength: 0.45 } })).statusCode, 200)
  const edited = (await t.call('GET', `${API}/tagSet/${a.tagSet}/reviewSummary/`, { as: c.reader })).data
  assert.equal([edited.tags, edited.classes[1].bands[9].tags, edited.classes[1].bands[4].tags], [103, 0, 1])

  // what discovery reads: the consensus of every decided tag, and the class a `no` names
  const reviewed = await reviewedTags(t.db, a.tagSet)
  assert.is(reviewed.length, 15)
  assert.equal(
    reviewed.find((r) => r.tag === b1[1]),
    {
      tag: b1[1],
      mediaFile,
      startTime: 1,
      endTime: 2,
      minFrequency: 100,
      maxFrequency: 2000,
      tagClass: a.tagClass,
      strength: 0.15,
      consensus: 'no',
      namedClass: classB,
    },
  )
  assert.equal(
    [b7, b9[0], b1[0]].map((id) => reviewed.find((r) => r.tag === id)?.consensus),
    ['unsure', 'yes', 'yes'],
  )
  assert.is(
    reviewed.find((r) => r.tag === b1[5]),
    undefined,
  )
})

test('the kept counts by band: many single writes are folded by the summary and by the periodic sweep, exactly', async () => {
  const rowsOf = async (set: number) =>
    Number(
      (
        await t.db
          .selectFrom('tag_band_counts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tag_set_id', '=', set)
          .executeTakeFirstOrThrow()
      ).n,
    )
  const strengths = Array.from({ length: 80 }, (_, i) => (i % 20) / 20)
  const read = await tagSetWith(strengths)
  const swept = await tagSetWith(strengths)
  assert.is(await rowsOf(read.tagSet), 80)
  const s = (await t.call('GET', `${API}/tagSet/${read.tagSet}/reviewSummary/`, { as: c.owner })).data
  assert.equal(
    s.classes[0].bands.map((b: { tags: number }) => b.tags),
    Array(10).fill(8),
  )
  assert.is(await rowsOf(read.tagSet), 10)
  assert.ok((await foldCrowdedBandCounts(t.db)) >= 1)
  assert.is(await rowsOf(swept.tagSet), 10)
  const byBand = (await tagsByBand(t.db, swept.tagSet)).sort((x, y) => x.band - y.band)
  assert.equal(
    byBand,
    Array.from({ length: 10 }, (_, band) => ({ tag_class_id: swept.tagClass, band, tags: 8 })),
  )
})

test('a fold of the band counts keeps no row of a class that is gone, and locks those it keeps', async () => {
  const strengths = Array.from({ length: 80 }, (_, i) => (i % 20) / 20)
  const { tagSet, tagClass } = await tagSetWith(strengths)
  // the kept rows have no foreign key to the class (migration 2026_12_01_4202): rows of a class deleted while a
  // fold ran are the case, made here directly
  const gone =
    (
      await t.db
        .selectFrom('tag_classes')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow()
    ).id! + 1000
  await t.db
    .insertInto('tag_band_counts')
    .values(Array.from({ length: 5 }, () => ({ tag_set_id: tagSet, tag_class_id: gone, band: 3, delta: 1 })))
    .execute()
  assert.ok((await foldCrowdedBandCounts(t.db)) >= 1)
  const byBand = (await tagsByBand(t.db, tagSet)).sort((x, y) => x.band - y.band)
  assert.equal(
    byBand,
    Array.from({ length: 10 }, (_, band) => ({ tag_class_id: tagClass, band, tags: 8 })),
  )
})

test.run()
