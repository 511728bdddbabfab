import { writeFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BUILTIN_KIND, storeEmbeddings } from '../../server/analysis/similar/store.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { makeLibrary, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { importMedia } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'
import { openPage, type Page } from './chromium.js'
import { logInOnReviewPage } from './reviewLogin.js'

// "Find similar" on the review page in headless Chromium: from a clip of the queue, the windows of the library
// most like its tag (stored embeddings made here with a known structure: the windows at 10, 20 and 30 s are like
// the tag's, every other one is not), marked yes and no into a tag set named after the class, each mark a machine
// tag with the decision on it, then a TrainClassifier job started from the marks. MAS_SIMILAR_SCREENSHOT names a
// file for a screenshot.

let t: TestApp
let origin: string
let page: Page | undefined
let alice: TestUser
let library: number
let calls: number
let tag: number
let blackbird: number

const D = 16
const STEP = 0.5
const WINDOWS = 79 // 1 s windows every 0.5 s over 40 s
const like = [10, 20, 30]

/** window i's vector: the call's direction near the tag (1-2 s) and at 10, 20 and 30 s, else one of its own */
function vectorOf(i: number): number[] {
  const start = i * STEP
  const callLike = (start >= 1 && start <= 1.5) || like.includes(start)
  return Array.from({ length: D }, (_, j) =>
    callLike ? (j === 0 ? 1 : 0.01 * Math.sin(i + j) + 0.001 * like.indexOf(start)) : Math.sin((i + 3) * (j + 1)),
  )
}

test.before(async () => {
  t = await testApp()
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice, 'dawn season')
  const upload = await importMedia(t, alice, library, makeWav({ seconds: 40, frequency: 2000, sampleRate: 16000 }), {
    filename: 'dawn.wav',
  })
  assert.is(upload.statusCode, 201, JSON.stringify(upload.data))
  blackbird = await makeTagClass(t.db, alice, library, 'blackbird')
  calls = await makeTagSet(t.db, alice, library, 'calls')
  tag = await makeTag(
    t.db,
    alice,
    { tagSet: calls, mediaFile: upload.data.id, tagClass: blackbird },
    { startTime: 1, endTime: 2, minFrequency: 1500, maxFrequency: 2500, strength: 0.9 },
  )
  await storeEmbeddings(t.db, {
    mediaFile: upload.data.id,
    library,
    kind: BUILTIN_KIND,
    windowSeconds: 1,
    hopSeconds: STEP,
    lengthSeconds: 1,
    stepSeconds: STEP,
    duration: 40,
    dimensions: D,
    vectors: Float32Array.from(Array.from({ length: WINDOWS }, (_, i) => vectorOf(i)).flat()),
  })
})

test.after(async () => {
  await page?.close()
  await t?.close()
})

const clips = (selector = '') => `document.querySelectorAll('mas-review-clip${selector}').length`

test('from a clip of the queue: the windows most like it, marked into a tag set named after its class, then a classifier trained from the marks', async () => {
  page = await openPage(`${origin}/review/?tagSet=${calls}`, { width: 1280, height: 1000 })
  await logInOnReviewPage(page, alice)
  await page.waitFor(
    `${clips()} === 1 && document.querySelector('mas-review-clip button.similar')`,
    "the queue's clip with its find similar button",
  )
  await page.evaluate(`document.querySelector('mas-review-clip button.similar').click()`)
  await page.waitFor(
    `new URLSearchParams(location.search).get('similarTo') === '${tag}' && ${clips()} > 3`,
    'the similar windows',
  )

  // nearest first: the three windows like the call, none of the tag's own stretch
  const shown = await page.evaluate<string[]>(
    `[...document.querySelectorAll('mas-review-clip .clip-body > div:nth-child(2)')].map((d) => d.textContent)`,
  )
  assert.equal(
    shown
      .slice(0, 3)
      .map((s) => Number(/@ (\d+\.\d+)/.exec(s)![1]))
      .sort((a, b) => a - b),
    like,
    shown.join('; '),
  )
  assert.is(await page.evaluate<string>(`document.querySelector('header input').value`), 'blackbird, similar')
  assert.match(
    await page.evaluate<string>(`document.querySelector('header h1').textContent`),
    new RegExp(`^Like tag ${tag} \\(blackbird\\)$`),
  )
  await page.waitFor(
    `[...document.querySelectorAll('mas-review-clip img')].every((i) => i.complete && i.naturalWidth > 0)`,
    'the spectrograms drawn',
  )

  // yes, yes, yes on the three like it, no on the fourth (by keyboard, as in the queue)
  for (const [i, key] of ['y', 'y', 'y', 'n'].entries()) {
    await page.press(key)
    await page.waitFor(`${clips('[decision]')} >= ${i + 1}`, `mark ${i + 1}`, 10_000)
  }
  await page.waitFor(`document.querySelector('.progress').textContent.startsWith('4 of')`, 'the marks counted')
  if (process.env.MAS_SIMILAR_SCREENSHOT) writeFileSync(process.env.MAS_SIMILAR_SCREENSHOT, await page.screenshot(1000))

  const sets = (await t.call('GET', `/api/v0/tagSet/?library=${library}`, { as: alice })).data.results as Array<{
    id: number
    name: string
  }>
  const marks = sets.find((s) => s.name === 'blackbird, similar')
  assert.ok(marks, JSON.stringify(sets))
  const marked = await t.db
    .selectFrom('tags as g')
    .innerJoin('tag_reviews as r', 'r.tag_id', 'g.id')
    .select(['g.start_time', 'g.end_time', 'g.tag_class_id', 'g.machine_tagged', 'r.decision', 'r.user_id'])
    .where('g.tag_set_id', '=', marks!.id)
    .orderBy('g.id')
    .execute()
  assert.is(marked.length, 4)
  assert.equal(
    marked
      .slice(0, 3)
      .map((m) => m.start_time)
      .sort((a, b) => a - b),
    like,
  )
  assert.equal(
    marked.map((m) => m.decision),
    ['yes', 'yes', 'yes', 'no'],
  )
  assert.ok(
    marked.every(
      (m) =>
        m.tag_class_id === blackbird && m.machine_tagged && m.user_id === alice.id && m.end_time - m.start_time === 1,
    ),
  )

  // train: a TrainClassifier job from the marks, into "blackbird, similar, found"
  await page.evaluate(`document.querySelector('header button.train').click()`)
  await page.waitFor(`document.querySelector('.progress').textContent.startsWith('training: job')`, 'the job started')
  const job = await t.db
    .selectFrom('jobs')
    .select(['id', 'type_id', 'status_id'])
    .where('type_id', '=', 15)
    .executeTakeFirstOrThrow()
  const params = Object.fromEntries(
    (await t.db.selectFrom('job_parameters').select(['name', 'value']).where('job_id', '=', job.id).execute()).map(
      (p) => [p.name, p.value],
    ),
  )
  const found = (await t.call('GET', `/api/v0/tagSet/?library=${library}`, { as: alice })).data.results.find(
    (s: { name: string }) => s.name === 'blackbird, similar, found',
  )
  assert.ok(found)
  assert.equal([params.sourceTagSet, params.destinationTagSet], [String(marks!.id), String(found.id)])
})

test.run()
