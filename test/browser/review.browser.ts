import { writeFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { STRATEGIES, STRATEGY_HELP } from '../../server/analysis/reviewStrategies.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { makeLibrary, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { importMedia } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'
import { openPage, type Page } from './chromium.js'
import { logInOnReviewPage } from './reviewLogin.js'

// The review page at /review/ in headless Chromium: a person logs in, reviews ten tags with the keyboard
// (y, n, u, s, arrows, a number for another class), reloads, and finds the decisions kept and the summary
// counting them; then reviews in the uncertain order. MAS_REVIEW_SCREENSHOT names a file for a screenshot of
// the page (and, beside it, -uncertain.png). `npm run test:browser`.

let t: TestApp
let origin: string
let page: Page | undefined
let alice: TestUser
let tagSet: number
let blackbird: number
let robin: number
const tags: number[] = []
/** a second tag set, of strengths a detector's probabilities could have (NaN: none) */
let probabilities: number
const probabilityTags: number[] = []

test.before(async () => {
  t = await testApp()
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
  alice = await t.user('alice')
  const library = await makeLibrary(t.db, alice)
  const upload = await importMedia(t, alice, library, makeWav({ seconds: 40, frequency: 2000, sampleRate: 16000 }), {
    filename: 'dawn.wav',
  })
  assert.is(upload.statusCode, 201, JSON.stringify(upload.data))
  blackbird = await makeTagClass(t.db, alice, library, 'blackbird')
  robin = await makeTagClass(t.db, alice, library, 'robin')
  tagSet = await makeTagSet(t.db, alice, library, 'detections')
  for (let i = 0; i < 12; i++) {
    tags.push(
      await makeTag(
        t.db,
        alice,
        { tagSet, mediaFile: upload.data.id, tagClass: blackbird },
        { startTime: 1 + i * 3, endTime: 2 + i * 3, minFrequency: 1500, maxFrequency: 2500, strength: (i + 0.5) / 12 },
      ),
    )
  }
  probabilities = await makeTagSet(t.db, alice, library, 'probabilities')
  for (const [i, strength] of [NaN, 0.95, 0.52, 0.1, 0.45, 0.7].entries()) {
    probabilityTags.push(
      await makeTag(
        t.db,
        alice,
        { tagSet: probabilities, mediaFile: upload.data.id, tagClass: robin },
        { startTime: 1 + i * 3, endTime: 2 + i * 3, minFrequency: 1500, maxFrequency: 2500, strength },
      ),
    )
  }
  // the tag without a strength ends with the recording: its picture's context stops there
  await t.db.updateTable('tags').set({ start_time: 38.5, end_time: 40 }).where('id', '=', probabilityTags[0]).execute()
  // the 0.52 tag as a model job writes it: what made it is shown beside it
  await t.db
    .updateTable('tags')
    .set({
      machine_tagged: true,
      provenance: JSON.stringify({
        source: 'model BirdNET',
        version: '2.4',
        job: 7,
        parameters: {
          model: 1,
          destinationTagSet: probabilities,
          library,
          minimumStrength: 0.5,
          species: 'ohio-may.txt',
          sourceTagSet: tagSet,
        },
      }),
    })
    .where('id', '=', probabilityTags[2])
    .execute()
})

test.after(async () => {
  await page?.close()
  await t?.close()
})

/** Leave the page by `navigation` once the evaluation has answered (a navigation during one fails it), marking the
 * document left, so that a wait for the next one (NEW_PAGE) cannot be answered by the old. */
const LEAVE = (navigation: string) => `document.documentElement.dataset.left = '1'; setTimeout(() => ${navigation})`
const NEW_PAGE = `!document.documentElement?.dataset.left`

const clips = (selector = '') => `document.querySelectorAll('mas-review-clip${selector}').length`

test('log in, review ten tags by keyboard, reload and find them kept, and the summary counting them', async () => {
  page = await openPage(`${origin}/review/?tagSet=${tagSet}`, { width: 1280, height: 1000 })
  await logInOnReviewPage(page, alice)
  await page.waitFor(`${clips()} === 12`, 'twelve clips')
  await page.waitFor(`document.querySelector('table.summary tbody tr')`, 'the summary')
  // each clip: its spectrogram with a second of context, and its audio by a media fragment
  const first = await page.evaluate<{ img: string; audio: string }>(`(() => {
    const c = document.querySelector('mas-review-clip')
    return { img: c.querySelector('img').getAttribute('src'), audio: c.querySelector('audio').getAttribute('src') }
  })()`)
  assert.match(first.img, /\/spectra\/\?format=png&startTime=\d+(\.\d+)?&endTime=\d+(\.\d+)?&tagSet=\d+$/)
  assert.match(first.audio, /^http:\/\/127\.0\.0\.1:\d+\/media\/.+#t=\d+(\.\d+)?,\d+(\.\d+)?$/)
  await page.waitFor(
    `[...document.querySelectorAll('mas-review-clip img')].every((i) => i.complete && i.naturalWidth > 0)`,
    'the spectrograms drawn',
  )
  const range = await page.evaluate<number>(
    `fetch(${JSON.stringify(first.audio.split('#')[0])}, { headers: { Range: 'bytes=0-99' } }).then((r) => r.status)`,
  )
  assert.is(range, 206)

  // the order the page shows them in, and the decisions made by keyboard on each
  const shown = await page.evaluate<number[]>(
    `[...document.querySelectorAll('mas-review-clip')].map((c) => Number(c.dataset.tag))`,
  )
  const keys = ['y', 'y', 'n', '1', 'ArrowRight', 'ArrowLeft', 'u', 's', 'y', 'y', 'n', 'y']
  const expected = ['yes', 'yes', 'no', 'no', 'unsure', 'skip', 'yes', 'yes', 'no', 'yes']
  let decided = 0
  for (const key of keys) {
    await page.press(key)
    if (!key.startsWith('Arrow'))
      await page.waitFor(`${clips('[decision]')} >= ${++decided}`, `decision ${decided} (${key})`, 10_000)
  }
  await page.waitFor(`${clips('[decision]')} === 10`, 'ten decisions shown')
  await page.waitFor(`document.querySelector('.progress').textContent.startsWith('10 of 12')`, 'the progress')
  if (process.env.MAS_REVIEW_SCREENSHOT) writeFileSync(process.env.MAS_REVIEW_SCREENSHOT, await page.screenshot(1000))

  const saved = (await t.call('GET', `/api/v0/tagReview/?tagSet=${tagSet}&user=${alice.id}`, { as: alice })).data
    .results
  const byTag = new Map(saved.map((r: any) => [r.tag, r]))
  assert.equal(
    shown.slice(0, 10).map((id) => (byTag.get(id) as any)?.decision),
    expected,
  )
  assert.equal((byTag.get(shown[3]) as any).tagClass, robin)

  // reloaded: the ten are kept (the queue holds the two left) and the summary counts them
  await page.evaluate(LEAVE('location.reload()'))
  await page.waitFor(
    `${NEW_PAGE} && ${clips()} === 2 && document.querySelector('table.summary tbody tr')`,
    'the two tags left',
  )
  assert.equal(
    new Set(
      await page.evaluate<number[]>(
        `[...document.querySelectorAll('mas-review-clip')].map((c) => Number(c.dataset.tag))`,
      ),
    ),
    new Set(shown.slice(10)),
  )
  const row = await page.evaluate<string[]>(
    `[...document.querySelector('table.summary tbody tr[data-class="${blackbird}"]').children].map((td) => td.textContent)`,
  )
  // class, tags, yes, no, unsure, precision (5 yes of 8 yes/no, each band weighing its tags)
  assert.equal(row.slice(0, 5), ['blackbird', '12', '5', '3', '1'])
  const summary = (await t.call('GET', `/api/v0/tagSet/${tagSet}/reviewSummary/`, { as: alice })).data
  assert.is(row[5], `${Math.round(summary.classes[0].thresholds[0].precision * 100)}%`)
  assert.match(await page.evaluate<string>(`document.querySelector('.progress').textContent`), /9 of 12 tags decided/)
})

test('the uncertain order: named in the address, chosen with the keyboard, kept in the address', async () => {
  assert.ok(page, 'the first test logged in')
  const shownTags = `[...document.querySelectorAll('mas-review-clip')].map((c) => Number(c.dataset.tag))`
  // the tags nearest 0.5 first, the one without a strength last
  await page!.evaluate(LEAVE(`location.assign('/review/?tagSet=${probabilities}&strategy=uncertain')`))
  await page!.waitFor(
    `${NEW_PAGE} && ${clips()} === 6 && document.querySelector('table.summary')`,
    'the six clips of the second tag set',
  )
  assert.is(await page!.evaluate<string>(`document.querySelector('select[aria-label=strategy]').value`), 'uncertain')
  // the menu offers the server's strategies, described as the server describes them
  assert.equal(
    await page!.evaluate<string[][]>(
      `[...document.querySelectorAll('select[aria-label=strategy] option')].map((o) => [o.value, o.title])`,
    ),
    STRATEGIES.map((s) => [s, STRATEGY_HELP[s]]),
  )
  assert.equal(
    await page!.evaluate<number[]>(shownTags),
    [2, 4, 5, 3, 1, 0].map((i) => probabilityTags[i]),
  )
  assert.equal(
    await page!.evaluate<string[]>(
      `[...document.querySelectorAll('.clip-title > span:first-child')].map((s) => s.textContent)`,
    ),
    ['robin · 0.52', 'robin · 0.45', 'robin · 0.70', 'robin · 0.10', 'robin · 0.95', 'robin · –'],
  )
  // the model and its settings beside the tag it made, the whole provenance on hover; tags made by hand show none
  assert.equal(
    await page!.evaluate<Array<string | null>>(
      `[...document.querySelectorAll('mas-review-clip')].map((c) => c.querySelector('.made-by')?.textContent ?? null)`,
    ),
    [
      'model BirdNET 2.4 · job 7 · minimumStrength 0.5 · species ohio-may.txt · sourceTagSet "detections"',
      null,
      null,
      null,
      null,
      null,
    ],
  )
  assert.match(await page!.evaluate<string>(`document.querySelector('.made-by').title`), /"species": "ohio-may.txt"/)
  await page!.waitFor(
    `[...document.querySelectorAll('mas-review-clip img')].every((i) => i.complete && i.naturalWidth > 0)`,
    'the spectrograms drawn',
  )
  if (process.env.MAS_REVIEW_SCREENSHOT)
    writeFileSync(
      process.env.MAS_REVIEW_SCREENSHOT.replace(/(\.png)?$/, '-uncertain.png'),
      await page!.screenshot(1000),
    )
  // the least sure decided first
  await page!.press('n')
  await page!.waitFor(`${clips('[decision=no]')} === 1`, 'the decision shown')
  const mine = (await t.call('GET', `/api/v0/tagReview/?tagSet=${probabilities}&user=${alice.id}`, { as: alice })).data
    .results
  assert.equal(
    mine.map((r: { tag: number; decision: string }) => [r.tag, r.decision]),
    [[probabilityTags[2], 'no']],
  )

  // another order from the menu, by keyboard: it is kept in the address, and a reload keeps it
  await page!.evaluate(`document.querySelector('select[aria-label=strategy]').focus()`)
  await page!.press('ArrowUp')
  await page!.waitFor(
    `new URLSearchParams(location.search).get('strategy') === 'top' && ${clips()} === 5 && ${clips('[decision]')} === 0`,
    'the top order',
  )
  assert.equal(
    await page!.evaluate<number[]>(shownTags),
    [1, 5, 4, 3, 0].map((i) => probabilityTags[i]),
  )
  await page!.evaluate(LEAVE('location.reload()'))
  await page!.waitFor(
    `${NEW_PAGE} && ${clips()} === 5 && document.querySelector('select[aria-label=strategy]').value === 'top'`,
    'the top order after a reload',
  )
})

test('on a phone the grid is one column', async () => {
  const phone = await openPage(`${origin}/review/?tagSet=${tagSet}`, { width: 390, height: 800 })
  try {
    await phone.waitFor(`document.querySelector('form.login')`, 'the login form')
    const columns = await phone.evaluate<string>(
      `getComputedStyle(document.querySelector('mas-review-app').appendChild(Object.assign(document.createElement('div'), { className: 'grid' }))).gridTemplateColumns`,
    )
    assert.is(columns.split(' ').length, 1)
  } finally {
    await phone.close()
  }
})

test('on a phone 390 px wide each clip has a play control in view that plays its audio when tapped', async () => {
  const phone = await openPage(`${origin}/review/?tagSet=${probabilities}`, { width: 390, height: 844, mobile: true })
  try {
    await logInOnReviewPage(phone, alice)
    await phone.waitFor(
      `${clips()} > 0 && [...document.querySelectorAll('mas-review-clip img')].every((i) => i.complete && i.naturalWidth > 0)`,
      'the clips drawn',
    )
    if (process.env.MAS_REVIEW_SCREENSHOT)
      writeFileSync(process.env.MAS_REVIEW_SCREENSHOT.replace(/(\.png)?$/, '-phone.png'), await phone.screenshot(844))
    // the first clip's play control: in the viewport, of a size a finger can tap, and not covered by anything
    const control = await phone.evaluate<{
      left: number
      right: number
      top: number
      bottom: number
      width: number
      height: number
      viewport: number
      onTop: boolean
      label: string
    }>(`(() => {
      const button = document.querySelector('mas-review-clip button.play')
      const r = button.getBoundingClientRect()
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height, viewport: innerWidth,
        onTop: hit === button || button.contains(hit), label: button.getAttribute('aria-label') }
    })()`)
    // laid out at the phone's width: nothing wider (the summary table scrolls in its box), so nothing is shown shrunk
    assert.is(control.viewport, 390)
    assert.is(await phone.evaluate<number>('document.documentElement.scrollWidth'), 390)
    assert.ok(
      control.left >= 0 && control.right <= 390 && control.top >= 0 && control.bottom <= 844,
      `the play control at ${JSON.stringify(control)}`,
    )
    assert.ok(
      control.width >= 32 && control.height >= 32,
      `the play control is ${control.width} × ${control.height} px`,
    )
    assert.ok(control.onTop, 'nothing covers the play control')
    assert.is(control.label, 'play')
    // the audio player itself fits the card: none of it is cut off at the right
    const player = await phone.evaluate<{ right: number; card: number }>(`(() => {
      const c = document.querySelector('mas-review-clip')
      return { right: c.querySelector('audio').getBoundingClientRect().right, card: c.getBoundingClientRect().right }
    })()`)
    assert.ok(player.right <= player.card, `the player ends at ${player.right}, the card at ${player.card}`)
    await phone.click((control.left + control.right) / 2, (control.top + control.bottom) / 2)
    await phone.waitFor(`!document.querySelector('mas-review-clip audio').paused`, 'the clip playing', 10_000)
    // the control follows the audio's 'play' event, which the browser fires a task after paused turns false
    await phone.waitFor(
      `document.querySelector('mas-review-clip button.play').getAttribute('aria-label') === 'pause'`,
      'the control showing pause',
      10_000,
    )
    // tapped again, it pauses
    await phone.click((control.left + control.right) / 2, (control.top + control.bottom) / 2)
    await phone.waitFor(`document.querySelector('mas-review-clip audio').paused`, 'the clip paused', 10_000)
  } finally {
    await phone.close()
  }
})

test.run()
