import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { waitForStatus } from '../helpers/jobs.js'
import { makeLibrary, makeTagSet } from '../helpers/records.js'
import { signal, storedWav, type Tone } from '../helpers/signals.js'
import { spoken, voiced } from '../helpers/speech.js'

// SpeechDetection finds people's voices among birdsong with the bundled speech detector. Twenty recordings of
// 8 s at 22,050 Hz, each with a sentence spoken by espeak-ng (voices, speeds and pitches varied) mixed in at a
// known place, birdsong-like chirps and trills before and after it, and noise: at least 90% of the seconds spoken
// are tagged, and at least 90% of the seconds tagged are spoken.

const t = suiteApp(test)
let alice: TestUser
let library: number

const RATE = 22_050
const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Meet me by the old oak tree at noon.',
  'Recording number four, site B, north transect.',
  'Did you hear the blackbird singing this morning?',
  'We should be back before it gets dark.',
  'Turn left at the gate and follow the fence.',
  'This microphone is picking up everything we say.',
  'Please remember to change the batteries tomorrow.',
  'How many robins did you count today?',
  'The river is much higher than last week.',
  'Can you pass me the field notebook?',
  'It is going to rain again this afternoon.',
  'The recorder starts at five and stops at nine.',
  'I think that was a song thrush over there.',
  'Let us check the second recorder first.',
  'My boots are soaked from the wet grass.',
  'Write down the time and the temperature.',
  'Two owls were calling from the woods last night.',
  'The signal is clear on this channel.',
  'We will come back to collect the cards on Friday.',
]
const VOICES = ['en', 'en-us', 'en-gb-x-rp', 'en-029']

/** Chirps (rising sweeps) and a trill, as a songbird's, around the speech at `[from, to]`. */
function birdsong(from: number, to: number, seed: number): Tone[] {
  const tones: Tone[] = []
  for (let at = 0.3 + (seed % 3) * 0.1; at < 7.8; at += 0.45) {
    if (at + 0.15 > from - 0.4 && at < to + 0.4) continue
    tones.push(
      seed % 2
        ? { from: at, to: at + 0.12, frequency: 2500, toFrequency: 5500, amplitude: 0.3 }
        : { from: at, to: at + 0.15, frequency: 4000, trill: 40, amplitude: 0.3 },
    )
  }
  return tones
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start))

test.before(async () => {
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice, 'with people')
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20, threads: 1 }).start()
  t.beforeClose(() => worker.stop())
})

test('20 recordings of speech among birdsong: at least 90% of the spoken seconds tagged as speech, at least 90% of the tagged seconds spoken', async () => {
  const truth = new Map<number, { start: number; end: number }>()
  for (let i = 0; i < SENTENCES.length; i++) {
    const speech = spoken(SENTENCES[i], {
      voice: VOICES[i % VOICES.length],
      wordsPerMinute: 140 + (i % 5) * 20,
      pitch: 30 + (i % 4) * 15,
    })
    assert.is(speech.sampleRate, RATE)
    const offset = 1.5 + (i % 4) * 0.5
    const where = voiced(speech.samples, RATE)
    const span = { start: offset + where.start, end: offset + where.end }
    const samples = signal(8, RATE, birdsong(span.start, span.end, i), 0.01, 100 + i)
    const at = Math.round(offset * RATE)
    for (let k = 0; k < speech.samples.length && at + k < samples.length; k++)
      samples[at + k] += 0.8 * speech.samples[k]
    span.end = Math.min(span.end, 8)
    truth.set(await storedWav(t.db, t.app.config, alice, library, samples, RATE), span)
  }
  const tagSet = await makeTagSet(t.db, alice, library, 'people')
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'privacy', type: 13, parameters: { destinationTagSet: String(tagSet), library: String(library) } },
  })
  assert.is(res.statusCode, 201, res.body)
  const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 240)
  assert.is(job.status_id, 6, JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').execute()))

  const tags = await t.db
    .selectFrom('tags as g')
    .innerJoin('tag_classes as c', 'c.id', 'g.tag_class_id')
    .select([
      'g.media_file_id',
      'g.start_time',
      'g.end_time',
      'g.strength',
      'g.machine_tagged',
      'g.max_frequency',
      'g.provenance',
      'c.class_name',
    ])
    .where('g.tag_set_id', '=', tagSet)
    .execute()
  let spokenSeconds = 0
  let taggedSeconds = 0
  let both = 0
  for (const [file, span] of truth) {
    spokenSeconds += span.end - span.start
    for (const g of tags.filter((x) => x.media_file_id === file)) {
      const tagged = { start: g.start_time, end: g.end_time }
      taggedSeconds += tagged.end - tagged.start
      both += overlap(tagged, span)
    }
  }
  const recall = both / spokenSeconds
  const precision = both / taggedSeconds
  assert.ok(recall >= 0.9, `${(recall * 100).toFixed(1)}% of ${spokenSeconds.toFixed(1)} spoken seconds tagged`)
  assert.ok(precision >= 0.9, `${(precision * 100).toFixed(1)}% of ${taggedSeconds.toFixed(1)} tagged seconds spoken`)
  assert.ok(
    tags.every(
      (g) =>
        g.class_name === 'speech' &&
        g.machine_tagged &&
        g.max_frequency === RATE / 2 &&
        g.strength >= 0.5 &&
        g.strength <= 1,
    ),
  )
  assert.equal([tags[0].provenance?.source, tags[0].provenance?.job], ['mas SpeechDetection', res.data.id])
  assert.match(String(tags[0].provenance?.model), /^Silero VAD/)
  const note = (
    await t.db
      .selectFrom('job_result_files')
      .select('notes')
      .where('job_id', '=', res.data.id)
      .executeTakeFirstOrThrow()
  ).notes
  assert.match(note, /^20 files listened to: \d+ spans? of speech, \d+\.\d{1,3} s in all$/)
})

test('birdsong and noise alone: no speech tagged', async () => {
  const quiet = await makeLibrary(t.db, alice, 'birds only')
  for (let i = 0; i < 3; i++)
    await storedWav(t.db, t.app.config, alice, quiet, signal(8, RATE, birdsong(100, 100, i), 0.01, 300 + i), RATE)
  const tagSet = await makeTagSet(t.db, alice, quiet, 'people')
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'privacy', type: 13, parameters: { destinationTagSet: String(tagSet), library: String(quiet) } },
  })
  assert.is(res.statusCode, 201, res.body)
  assert.is((await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)).status_id, 6)
  assert.equal(await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', tagSet).execute(), [])
})

test.run()
