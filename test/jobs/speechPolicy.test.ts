import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { flacChunks } from '../helpers/flac.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { waitForStatus } from '../helpers/jobs.js'
import { grant, makeLibrary, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { signal, wavOf, type Tone } from '../helpers/signals.js'
import { spoken, voiced } from '../helpers/speech.js'
import { importMedia } from '../helpers/upload.js'

// A library's speech policy (docs/decisions.md, "Speech policy"), end to end: a recording of birdsong-like
// chirps with a sentence spoken by espeak-ng in it, imported through the API; the policy set; the
// SpeechDetection scan it queues run by a real worker; then every way the audio leaves the server (the stored
// bytes, byte ranges of them as players ask, the spectrogram as JSON and as a picture) compared byte by byte
// between a reader, a writer and the owner.

const t = suiteApp(test)
let alice: TestUser
let bob: TestUser
let carol: TestUser
const RATE = 22_050
const WAV_HEADER = 44

const chirps = (avoid: { start: number; end: number }): Tone[] => {
  const tones: Tone[] = []
  for (let at = 0.3; at < 7.7; at += 0.5) {
    if (at + 0.15 > avoid.start - 0.5 && at < avoid.end + 0.5) continue
    tones.push({ from: at, to: at + 0.12, frequency: 2500, toFrequency: 5500, amplitude: 0.3 })
  }
  return tones
}

/** 8 s at 22,050 Hz: chirps, noise, and (with `sentence`) a spoken sentence from 2.5 s on; where it is. */
function recording(
  sentence: string | null,
  seed: number,
): { wav: Buffer; speech: { start: number; end: number } | null; tones: Tone[] } {
  if (!sentence) {
    const tones = chirps({ start: 100, end: 100 })
    return { wav: wavOf(signal(8, RATE, tones, 0.01, seed), RATE), speech: null, tones }
  }
  const s = spoken(sentence)
  const where = voiced(s.samples, RATE)
  const speech = { start: 2.5 + where.start, end: Math.min(8, 2.5 + where.end) }
  const tones = chirps(speech)
  const samples = signal(8, RATE, tones, 0.01, seed)
  const at = Math.round(2.5 * RATE)
  for (let k = 0; k < s.samples.length && at + k < samples.length; k++) samples[at + k] += 0.8 * s.samples[k]
  return { wav: wavOf(samples, RATE), speech, tones }
}

const media = (name: string, as: TestUser, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/media/${name}`, headers: { ...as.auth, ...headers } })

async function imported(
  as: TestUser,
  library: number,
  wav: Buffer,
  filename: string,
): Promise<{ id: number; file: string }> {
  const res = await importMedia(t, as, library, wav, { filename })
  assert.is(res.statusCode, 201, res.body)
  const row = await t.db
    .selectFrom('media_files')
    .select(['id', 'file'])
    .where('id', '=', res.json().id)
    .executeTakeFirstOrThrow()
  return row
}

const speechJobs = (library: number) =>
  t.db
    .selectFrom('jobs as j')
    .innerJoin('job_parameters as p', 'p.job_id', 'j.id')
    .select(['j.id', 'j.status_id', 'j.user_id'])
    .where('j.type_id', '=', 13)
    .where('p.name', '=', 'library')
    .where('p.value', '=', String(library))
    .orderBy('j.id')
    .execute()

async function scanned(library: number): Promise<void> {
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20, threads: 1 }).start()
  try {
    for (const j of await speechJobs(library)) {
      const done = await waitForStatus(t.db, j.id, [4, 5, 6], 120)
      assert.is(
        done.status_id,
        6,
        JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', j.id).execute()),
      )
    }
  } finally {
    await worker.stop()
  }
}

const speechTags = (mediaFile: number) =>
  t.db
    .selectFrom('tags as g')
    .innerJoin('tag_classes as c', 'c.id', 'g.tag_class_id')
    .select(['g.start_time', 'g.end_time'])
    .where('g.media_file_id', '=', mediaFile)
    .where('c.class_name', '=', 'speech')
    .orderBy('g.start_time')
    .execute()

const sampleAt = (wav: Buffer, i: number) => wav.readInt16LE(WAV_HEADER + 2 * i)

test.before(async () => {
  alice = await t.user('alice')
  bob = await t.user('bob')
  carol = await t.user('carol')
})

test('mute: a reader gets the recording with its speech silenced and its chirps untouched; the owner and a writer get the stored bytes', async () => {
  const library = await makeLibrary(t.db, alice, 'field season with people')
  await grant(t.db, alice, { user: bob.id }, { library }, ['read'])
  await grant(t.db, alice, { user: carol.id }, { library }, ['read', 'write'])
  const rec = recording('Meet me by the old oak tree at noon, near the second recorder.', 7)
  const file = await imported(alice, library, rec.wav, 'site-a.wav')
  assert.equal(await speechJobs(library), [], 'under keep, an import queues no scan')
  assert.is((await media(file.file, bob)).statusCode, 200)

  const set = await t.call('PATCH', `/api/v0/library/${library}/`, { as: alice, body: { speechPolicy: 'mute' } })
  assert.is(set.statusCode, 200, set.body)
  assert.is(set.data.speechPolicy, 'mute')
  const queued = await speechJobs(library)
  assert.is(queued.length, 1, 'setting the policy queues one scan of the library')
  assert.is(queued[0].user_id, alice.id)

  // until the scan has run, the reader gets nothing: not the bytes, not the spectrogram
  const early = await media(file.file, bob)
  assert.is(early.statusCode, 403)
  assert.match(early.json().detail, /has not been checked for human speech yet/)
  assert.is((await t.call('GET', `/api/v0/mediaFile/${file.id}/spectra/?format=png`, { as: bob })).statusCode, 403)
  assert.ok((await media(file.file, alice)).rawPayload.equals(rec.wav))

  await scanned(library)
  const spans = await speechTags(file.id)
  assert.ok(spans.length >= 1, 'the scan tagged the speech')

  const heard = (await media(file.file, bob)).rawPayload
  assert.is(heard.length, rec.wav.length)
  assert.ok(heard.subarray(0, WAV_HEADER).equals(rec.wav.subarray(0, WAV_HEADER)), 'the header is the stored one')
  const silenced = (i: number) =>
    spans.some((s) => i >= Math.floor(s.start_time * RATE) && i < Math.ceil(s.end_time * RATE))
  const frames = (rec.wav.length - WAV_HEADER) / 2
  let spoken = 0,
    spokenSilent = 0,
    changedOutside = 0
  for (let i = 0; i < frames; i++) {
    if (silenced(i)) assert.is(sampleAt(heard, i), 0)
    else if (sampleAt(heard, i) !== sampleAt(rec.wav, i)) changedOutside++
    const time = i / RATE
    if (rec.speech && time >= rec.speech.start && time < rec.speech.end && Math.abs(sampleAt(rec.wav, i)) > 330) {
      spoken++
      if (sampleAt(heard, i) === 0) spokenSilent++
    }
  }
  assert.is(changedOutside, 0, 'nothing outside the spans of speech changes')
  assert.ok(spokenSilent / spoken >= 0.9, `${spokenSilent} of ${spoken} loud samples of the speech silenced`)
  for (const tone of rec.tones) {
    assert.ok(
      !spans.some((s) => s.start_time < tone.to && s.end_time > tone.from),
      `the chirp at ${tone.from} s is not silenced`,
    )
  }

  // a player's byte ranges are ranges of the silenced bytes
  const middle = await media(file.file, bob, { range: 'bytes=1001-150000' })
  assert.is(middle.statusCode, 206)
  assert.ok(middle.rawPayload.equals(heard.subarray(1001, 150001)))
  assert.match(String(middle.headers['cache-control']), /no-store/)

  // the owner and a writer: the stored bytes, whole and in ranges
  for (const who of [alice, carol]) {
    assert.ok((await media(file.file, who)).rawPayload.equals(rec.wav), `${who.username} gets the stored bytes`)
    assert.ok(
      (await media(file.file, who, { range: 'bytes=1001-150000' })).rawPayload.equals(rec.wav.subarray(1001, 150001)),
    )
  }

  // the spectrogram: a flat band at the floor where the speech was, for the reader only; the same elsewhere
  const s = spans[0]
  const query = `startTime=${Math.max(0, s.start_time - 1).toFixed(3)}&endTime=${Math.min(8, s.end_time + 1).toFixed(3)}`
  const forBob = await t.call('GET', `/api/v0/mediaFile/${file.id}/spectra/?${query}`, { as: bob })
  const forAlice = await t.call('GET', `/api/v0/mediaFile/${file.id}/spectra/?${query}`, { as: alice })
  assert.is(forBob.statusCode, 200, forBob.body)
  const start = forBob.data.startTime as number
  const fps = forBob.data.framesPerSecond as number
  const loudest = (rows: number[][], from: number, to: number) =>
    Math.max(...rows.slice(Math.ceil((from - start) * fps), Math.floor((to - start) * fps)).flat())
  const inside = { from: s.start_time + 0.1, to: s.end_time - 0.1 }
  assert.ok(
    loudest(forBob.data.spectra, inside.from, inside.to) < loudest(forAlice.data.spectra, inside.from, inside.to) - 40,
    "the reader's spectrogram is flat where the speech was",
  )
  const before = { from: Math.max(start, s.start_time - 0.9), to: s.start_time - 0.2 }
  if (before.to > before.from + 0.1)
    assert.is(
      loudest(forBob.data.spectra, before.from, before.to),
      loudest(forAlice.data.spectra, before.from, before.to),
    )
  const pictures = await Promise.all(
    [bob, alice].map((who) => t.call('GET', `/api/v0/mediaFile/${file.id}/spectra/?format=png`, { as: who })),
  )
  assert.ok(pictures.every((p) => p.statusCode === 200))
  assert.not.ok(pictures[0].rawPayload.equals(pictures[1].rawPayload), "the reader's picture is not the owner's")
})

test('withhold: a reader is refused a recording with speech and given one without; each import is withheld until its scan has run', async () => {
  const created = await t.call('POST', '/api/v0/library/', {
    as: alice,
    body: { name: 'withheld season', speechPolicy: 'withhold' },
  })
  assert.is(created.statusCode, 201, created.body)
  assert.is(created.data.speechPolicy, 'withhold')
  const library = created.data.id as number
  await grant(t.db, alice, { user: bob.id }, { library }, ['read'])
  const talk = recording('Turn left at the gate and follow the fence to the pond.', 11)
  const birds = recording(null, 12)
  const talkFile = await imported(alice, library, talk.wav, 'talk.wav')
  const birdFile = await imported(alice, library, birds.wav, 'birds.wav')
  const before = await speechJobs(library)
  assert.ok(before.filter((j) => j.status_id === 2).length === 1, 'imports in a row share one queued scan')
  for (const f of [talkFile, birdFile]) assert.is((await media(f.file, bob)).statusCode, 403)

  await scanned(library)
  const refused = await media(talkFile.file, bob)
  assert.is(refused.statusCode, 403)
  assert.match(
    refused.json().detail,
    /holds human speech, and library withheld season withholds such recordings from its readers/,
  )
  assert.is((await t.call('GET', `/api/v0/mediaFile/${talkFile.id}/spectra/`, { as: bob })).statusCode, 403)
  assert.ok(
    (await media(birdFile.file, bob)).rawPayload.equals(birds.wav),
    'a recording without speech reaches the reader as stored',
  )
  assert.ok((await media(talkFile.file, alice)).rawPayload.equals(talk.wav), 'the owner gets the recording with speech')

  // a later import: queued again, withheld until scanned
  const later = recording(null, 13)
  const laterFile = await imported(alice, library, later.wav, 'later.wav')
  assert.is((await speechJobs(library)).filter((j) => j.status_id === 2).length, 1)
  assert.is((await media(laterFile.file, bob)).statusCode, 403)
  await scanned(library)
  assert.ok((await media(laterFile.file, bob)).rawPayload.equals(later.wav))
})

test('mute: a compressed recording with speech is refused to a reader (its bytes cannot be silenced in place); its spectrogram is muted', async () => {
  const library = await makeLibrary(t.db, alice, 'flac season')
  await grant(t.db, alice, { user: bob.id }, { library }, ['read'])
  const samples = signal(4, RATE, [{ from: 0.5, to: 3.5, frequency: 1000, amplitude: 0.5 }], 0.01, 3)
  const pcm = Int16Array.from(samples, (v) => Math.round(v * 32767))
  const parts: Buffer[] = []
  for await (const b of flacChunks([pcm], { sampleRate: RATE, totalFrames: pcm.length })) parts.push(b)
  const res = await importMedia(t, alice, library, Buffer.concat(parts), { filename: 'talk.flac' })
  assert.is(res.statusCode, 201, res.body)
  const file = await t.db
    .selectFrom('media_files')
    .select(['id', 'file'])
    .where('id', '=', res.json().id)
    .executeTakeFirstOrThrow()
  // a scan that found speech from 1 to 2 s
  const speech = await makeTagClass(t.db, alice, library, 'speech')
  await makeTag(
    t.db,
    alice,
    { tagSet: await makeTagSet(t.db, alice, library, 'speech'), mediaFile: file.id, tagClass: speech },
    { startTime: 1, endTime: 2 },
  )
  await t.db.updateTable('tags').set({ machine_tagged: true }).where('media_file_id', '=', file.id).execute()
  await t.db
    .updateTable('media_files')
    .set({ speech_scanned_at: '2026-11-29 10:00:00' })
    .where('id', '=', file.id)
    .execute()
  await t.db.updateTable('libraries').set({ speech_policy: 'mute' }).where('id', '=', library).execute()

  const refused = await media(file.file, bob)
  assert.is(refused.statusCode, 403)
  assert.match(refused.json().detail, /silences only WAV recordings' bytes/)
  assert.is((await media(file.file, alice)).statusCode, 200)
  const q = 'startTime=0.5&endTime=3.5'
  const [forBob, forAlice] = await Promise.all(
    [bob, alice].map((who) => t.call('GET', `/api/v0/mediaFile/${file.id}/spectra/?${q}`, { as: who })),
  )
  const fps = forBob.data.framesPerSecond as number
  const loudest = (rows: number[][], from: number, to: number) =>
    Math.max(...rows.slice(Math.ceil((from - 0.5) * fps), Math.floor((to - 0.5) * fps)).flat())
  assert.ok(loudest(forBob.data.spectra, 1.2, 1.8) < loudest(forAlice.data.spectra, 1.2, 1.8) - 40)
  assert.is(loudest(forBob.data.spectra, 2.3, 3.2), loudest(forAlice.data.spectra, 2.3, 3.2))
})

test('the policy is keep by default, takes keep, mute or withhold, and is set only by who may change the library', async () => {
  const library = await makeLibrary(t.db, alice, 'plain season')
  await grant(t.db, alice, { user: bob.id }, { library }, ['read'])
  assert.is((await t.call('GET', `/api/v0/library/${library}/`, { as: bob })).data.speechPolicy, 'keep')
  const bad = await t.call('PATCH', `/api/v0/library/${library}/`, { as: alice, body: { speechPolicy: 'quiet' } })
  assert.is(bad.statusCode, 400)
  assert.ok(Array.isArray(bad.data.speechPolicy), bad.body)
  const byReader = await t.call('PATCH', `/api/v0/library/${library}/`, { as: bob, body: { speechPolicy: 'keep' } })
  assert.is(byReader.statusCode, 403, byReader.body)
  assert.is(
    (await t.db.selectFrom('libraries').select('speech_policy').where('id', '=', library).executeTakeFirstOrThrow())
      .speech_policy,
    'keep',
  )
  // an empty library's scan finds nothing to do
  assert.is(
    (await t.call('PATCH', `/api/v0/library/${library}/`, { as: alice, body: { speechPolicy: 'mute' } })).statusCode,
    200,
  )
  await scanned(library)
})

test.run()
