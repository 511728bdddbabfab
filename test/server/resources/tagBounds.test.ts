import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { checkBounds } from '../../../server/resources/tagBounds.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeMediaFile, makeMetaData, makeTag } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

// A tag ends within its media file and below half its sample rate: POST (single, coalesced and bulk), PUT and
// PATCH refuse one that does not, naming the field and the limit; an estimated duration (MP3, a damaged file)
// has a tolerance; an unknown one holds times to 31 days; tags stored before are left as they are. The database's
// twin of the check (tag_region_fits), which a single create makes in its one statement (test/server/resources/fast/batches.test.ts),
// refuses wherever the check does, and accepts wherever it does when the facts are plain numbers.

const API = '/api/v0'
const t = suiteApp(test)
let alice: TestUser
let tagSet: number
let tagClass: number
let wav: number
let mp3: number
let damaged: number
let unknown: number
let library: number

test.before(async () => {
  // the usual media file is one of unknown duration: no facts read from it
  ;({
    owner: alice,
    library,
    tagSet,
    tagClass,
    mediaFile: unknown,
  } = await makeRecords(t, 'alice', { mediaFile: { file: 'odd.bin' } }))
  const withFacts = async (file: string, duration: string, rate: string, warning?: string) => {
    const id = await makeMediaFile(t.db, alice, library, { file })
    await makeMetaData(t.db, id, 'durationInSeconds', duration)
    await makeMetaData(t.db, id, 'sampleRate', rate)
    if (warning) await makeMetaData(t.db, id, 'warning', warning)
    return id
  }
  wav = await withFacts('dawn.wav', '34.0', '44100')
  mp3 = await withFacts('dawn.mp3', '100.0', '48000')
  damaged = await withFacts('cut.wav', '10.0', '8000', 'truncated: the file ends before its audio data does')
})

const tag = (mediaFile: number, startTime: number, endTime: number, maxFrequency = 4000) => ({
  tagSet,
  tagClass,
  mediaFile,
  startTime,
  endTime,
  minFrequency: 100,
  maxFrequency,
})
const post = (body: unknown) => t.call('POST', `${API}/tag/`, { as: alice, body })

test('a single create past the end or above half the sample rate is 400 naming the field and the limit', async () => {
  const late = await post(tag(wav, 40, 50))
  assert.is(late.statusCode, 400)
  assert.equal(late.data, { endTime: [`endTime 50.0 is past the end of media file ${wav} (dawn.wav), at 34.0 s.`] })
  const high = await post(tag(wav, 1, 2, 30000))
  assert.equal(
    [high.statusCode, high.data],
    [
      400,
      {
        maxFrequency: [
          `maxFrequency 30000.0 is above half the sample rate of media file ${wav} (dawn.wav), 22050.0 Hz.`,
        ],
      },
    ],
  )
  assert.is((await post(tag(wav, 33, 34, 22050))).statusCode, 201)
})

test('creates arriving together (one statement for several) each get their own answer', async () => {
  const answers = await Promise.all(
    Array.from({ length: 24 }, (_x, i) => post(tag(wav, 1, i % 2 ? 35 + i : 2 + i / 10))),
  )
  answers.forEach((a, i) => assert.is(a.statusCode, i % 2 ? 400 : 201, `${i}: ${a.body}`))
  assert.ok(
    answers.filter((a) => a.statusCode === 400).every((a) => /past the end of media file/.test(a.data.endTime[0])),
  )
})

test('a bulk create answers per item, and writes nothing when an item is out of bounds', async () => {
  const before = await t.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  const res = await post([tag(wav, 1, 2), tag(wav, 1, 60), tag(mp3, 1, 2, 24001)])
  assert.is(res.statusCode, 400)
  assert.equal(res.data[0], {})
  assert.match(res.data[1].endTime[0], /endTime 60\.0 is past the end/)
  assert.match(res.data[2].maxFrequency[0], /above half the sample rate/)
  const after = await t.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  assert.is(after.n, before.n)
})

test('an estimated duration (MP3, a damaged file) is allowed 1 s or 1%; an unknown one 31 days', async () => {
  assert.is((await post(tag(mp3, 99, 100.9))).statusCode, 201)
  const mp3Late = await post(tag(mp3, 99, 101.5))
  assert.equal(
    [mp3Late.statusCode, mp3Late.data.endTime],
    [
      400,
      [
        `endTime 101.5 is past the end of media file ${mp3} (dawn.mp3), at 100.0 s by an estimate that allows 1 s or 1% more.`,
      ],
    ],
  )
  assert.is((await post(tag(damaged, 9, 10.9, 4000))).statusCode, 201)
  assert.is((await post(tag(damaged, 9, 11.5, 4000))).statusCode, 400)
  assert.is((await post(tag(unknown, 1000, 31 * 86400, 90000))).statusCode, 201)
  const far = await post(tag(unknown, 1, 31 * 86400 + 1))
  assert.equal(
    [far.statusCode, far.data.endTime],
    [
      400,
      [
        'endTime 2678401.0 is more than 31 days (2678400 s), the longest a media file of unknown duration is taken to last.',
      ],
    ],
  )
})

test('PUT and PATCH are checked; a stored tag out of bounds is left as it is until its region or file changes', async () => {
  const id = (await post(tag(wav, 1, 2))).data.id
  const patched = await t.call('PATCH', `${API}/tag/${id}/`, { as: alice, body: { endTime: 50 } })
  assert.equal([patched.statusCode, Object.keys(patched.data)], [400, ['endTime']])
  const put = await t.call('PUT', `${API}/tag/${id}/`, { as: alice, body: tag(wav, 1, 2, 23000) })
  assert.equal([put.statusCode, Object.keys(put.data)], [400, ['maxFrequency']])
  // moved to a shorter file: its end is checked against that one
  const short = await makeMediaFile(t.db, alice, library, { file: 'short.wav' })
  await makeMetaData(t.db, short, 'durationInSeconds', '1.5')
  const moved = await t.call('PATCH', `${API}/tag/${id}/`, { as: alice, body: { mediaFile: short } })
  assert.equal(
    [moved.statusCode, moved.data.endTime],
    [400, [`endTime 2.0 is past the end of media file ${short} (short.wav), at 1.5 s.`]],
  )

  const old = await makeTag(t.db, alice, { tagSet, tagClass, mediaFile: wav }, { startTime: 40, endTime: 50 })
  const strength = await t.call('PATCH', `${API}/tag/${old}/`, { as: alice, body: { strength: 0.5 } })
  assert.is(strength.statusCode, 200, strength.body)
  const same = await t.call('PUT', `${API}/tag/${old}/`, {
    as: alice,
    body: { ...tag(wav, 40, 50, 2000), strength: 0.25 },
  })
  assert.is(same.statusCode, 200, same.body)
  assert.is((await t.call('PATCH', `${API}/tag/${old}/`, { as: alice, body: { endTime: 51 } })).statusCode, 400)
  assert.is(
    (await t.call('PATCH', `${API}/tag/${old}/`, { as: alice, body: { startTime: 30, endTime: 34 } })).statusCode,
    200,
  )
})

test("the database's twin of the check refuses wherever the check does, and agrees with it on plain numbers", async () => {
  const cases: Array<{ file: string; facts: Array<[string, string, boolean?]>; plain: boolean }> = [
    {
      file: 'a.wav',
      facts: [
        ['durationInSeconds', '12.5'],
        ['sampleRate', '32000'],
      ],
      plain: true,
    },
    {
      file: 'b.MP3',
      facts: [
        ['durationInSeconds', '250'],
        ['sampleRate', '22050.0'],
      ],
      plain: true,
    },
    {
      file: 'c.wav',
      facts: [
        ['durationInSeconds', '7'],
        ['sampleRate', '8000'],
        ['warning', 'cut short'],
      ],
      plain: true,
    },
    { file: 'd.flac', facts: [], plain: true },
    {
      file: 'e.wav',
      facts: [
        ['durationInSeconds', '-3'],
        ['durationInSeconds', '0'],
        ['durationInSeconds', ' 4.25 '],
      ],
      plain: true,
    },
    {
      file: 'f.wav',
      facts: [
        ['durationInSeconds', '5'],
        ['durationInSeconds', '9'],
        ['sampleRate', '.5e5'],
      ],
      plain: true,
    },
    {
      file: 'g.wav',
      facts: [
        ['durationInSeconds', '3', true],
        ['sampleRate', '1000', true],
      ],
      plain: true,
    },
    {
      file: 'h.wav',
      facts: [
        ['durationInSeconds', '0x10'],
        ['sampleRate', '44100'],
      ],
      plain: false,
    },
    {
      file: 'i.wav',
      facts: [
        ['durationInSeconds', '1e400'],
        ['durationInSeconds', '2'],
      ],
      plain: false,
    },
    {
      file: 'j.wav',
      facts: [
        ['durationInSeconds', 'two minutes'],
        ['sampleRate', 'Infinity'],
      ],
      plain: false,
    },
    { file: 'k.wav', facts: [['durationInSeconds', '1e300']], plain: false },
  ]
  const ends = [
    0.5, 2, 4.25, 4.2501, 5, 5.006, 7, 7.9, 8.1, 9, 9.0011, 12.5, 12.501, 12.502, 16, 250, 252.4, 252.6, 2678400,
    2678401,
  ]
  const tops = [0, 2000, 4000, 4001, 11025, 11026, 16000, 16001, 25000, 25001]
  for (const c of cases) {
    const id = await makeMediaFile(t.db, alice, library, { file: c.file })
    for (const [name, value, editable] of c.facts) await makeMetaData(t.db, id, name, value, editable ?? false)
    const regions = ends.flatMap((endTime) => tops.map((maxFrequency) => ({ mediaFile: id, endTime, maxFrequency })))
    const errors = await checkBounds(t.db, regions, null)
    for (const [i, r] of regions.entries()) {
      const fits = (
        await sql<{ fits: boolean }>`select tag_region_fits(${id}::integer, ${r.endTime}::double precision,
        ${r.maxFrequency}::double precision) as fits`.execute(t.db)
      ).rows[0].fits
      const passes = Object.keys(errors[i]).length === 0
      if (fits)
        assert.ok(passes, `${c.file} ${r.endTime} s ${r.maxFrequency} Hz: the twin accepts what the check refuses`)
      if (c.plain) assert.is(fits, passes, `${c.file} ${r.endTime} s ${r.maxFrequency} Hz`)
    }
  }
})

test.run()
