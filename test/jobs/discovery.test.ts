import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { AppConfig } from '../../server/config.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { addToProject, makeProject, waitForStatus } from '../helpers/jobs.js'
import { makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { makeRecords } from '../helpers/world.js'
import { signal, storedWav, type Tone } from '../helpers/signals.js'
import { openStorage } from '../../server/storage/index.js'

// The discovery jobs on generated audio with known content: supervised discovery finds a generated call
// (a rising chirp) hidden in noise among sounds that are not it (a trill, the chirp falling, a whistle),
// at several sample rates, on the worker's analysis threads; tags only what scores above minimumStrength,
// with the class of the examples it is like, within the file; says per file what it scanned; and goes on
// past a file it cannot decode. Clustering separates two distinct tones.

const RATE = 8000
const t = suiteApp(test)
let alice: TestUser
let config: AppConfig
let library: number

test.before(async () => {
  config = t.app.config
  ;({ owner: alice, library } = await makeRecords(t, 'alice'))
  const worker = new Worker({ db: t.db, config, pollMs: 20, threads: 2 }).start()
  t.beforeClose(() => worker.stop())
})

async function readStored(name: string): Promise<string> {
  const parts: Buffer[] = []
  for await (const b of openStorage(config).read(name)) parts.push(b as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

const createJob = async (project: number, type: number, parameters: Record<string, string>) => {
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'discover', project, type, parameters },
  })
  assert.is(res.statusCode, 201, JSON.stringify(res.data))
  return res.data.id as number
}

// A rising chirp (the call to find), a trill and the same chirp falling (sounds that are not it), at any rate.
const rising = (from: number): Tone => ({ from, to: from + 0.3, frequency: 2000, toFrequency: 4000, amplitude: 0.4 })
const falling = (from: number): Tone => ({ from, to: from + 0.3, frequency: 4000, toFrequency: 2000, amplitude: 0.4 })
const trill = (from: number): Tone => ({ from, to: from + 0.3, frequency: 3000, trill: 20, amplitude: 0.4 })
const whistle = (from: number): Tone => ({ from, to: from + 0.3, frequency: 1200, amplitude: 0.4 })

/** A tag set of chirps (band 1,800–4,200 Hz) on a 22,050 Hz recording that also holds a trill outside every tag. */
async function chirpExamples(classes: { chirp: number; whistle?: number }) {
  const calls = [1, 3, 5, 7]
  const tones = [...calls.map(rising), trill(9), ...(classes.whistle ? [whistle(11), whistle(13)] : [])]
  const media = await storedWav(t.db, config, alice, library, signal(15, 22050, tones, 0.02, 31), 22050)
  const source = await makeTagSet(t.db, alice, library)
  for (const at of calls) {
    await makeTag(
      t.db,
      alice,
      { tagSet: source, mediaFile: media, tagClass: classes.chirp },
      { startTime: at, endTime: at + 0.3, minFrequency: 1800, maxFrequency: 4200 },
    )
  }
  if (classes.whistle) {
    for (const at of [11, 13]) {
      await makeTag(
        t.db,
        alice,
        { tagSet: source, mediaFile: media, tagClass: classes.whistle },
        { startTime: at, endTime: at + 0.3, minFrequency: 1000, maxFrequency: 1400 },
      )
    }
  }
  return source
}

async function discover(media: number[], source: number, extra: Record<string, string> = {}) {
  const destination = await makeTagSet(t.db, alice, library)
  const project = await makeProject(t.db, alice)
  await addToProject(t.db, project, media)
  const id = await createJob(project, 1, {
    sourceTagSet: String(source),
    destinationTagSet: String(destination),
    numberOfTagsToDiscover: '3',
    windowSizeInSeconds: '0.3',
    ...extra,
  })
  const job = await waitForStatus(t.db, id, [4, 5, 6], 120)
  assert.is(job.status_id, 6, JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').execute()))
  const tags = (file: number) =>
    t.db
      .selectFrom('tags')
      .selectAll()
      .where('tag_set_id', '=', destination)
      .where('media_file_id', '=', file)
      .orderBy('strength', 'desc')
      .execute()
  const children = await t.db.selectFrom('jobs').select('id').where('parent_job_id', '=', id).orderBy('id').execute()
  const results = await t.db
    .selectFrom('job_result_files')
    .select(['job_id', 'notes', 'result_file'])
    .where(
      'job_id',
      'in',
      children.map((c) => c.id),
    )
    .orderBy('id')
    .execute()
  return { id, tags, results }
}

const overlaps = (tag: { start_time: number; end_time: number }, from: number, to: number) =>
  tag.start_time < to && tag.end_time > from

test('supervised discovery finds the hidden call at 22,050 and 48,000 Hz, in the same window, and leaves look-alikes untagged', async () => {
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const tones = [trill(2), rising(6.5), falling(11), whistle(14)]
  const at22 = await storedWav(t.db, config, alice, library, signal(20, 22050, tones, 0.02, 41), 22050)
  const at48 = await storedWav(t.db, config, alice, library, signal(20, 48000, tones, 0.02, 41), 48000)
  const { id, tags, results } = await discover([at22, at48], source)
  const [a, b] = [await tags(at22), await tags(at48)]
  for (const found of [a, b]) {
    assert.ok(found.length >= 1, 'the call is tagged')
    // what made them: the job launched (not its child for the file), its type and parameters
    for (const g of found) {
      assert.equal(
        [g.provenance?.source, g.provenance?.job, g.provenance?.parameters?.sourceTagSet],
        ['mas SupervisedTagDiscovery', id, source],
      )
      assert.match(String(g.provenance?.version), /^\d+\.\d+\.\d+/)
    }
    assert.ok(overlaps(found[0], 6.5, 6.8), `the strongest tag is on the call: ${JSON.stringify(found[0])}`)
    assert.ok(found[0].strength >= 0.5 && found[0].strength <= 1)
    assert.ok(
      found.every(
        (g) => g.machine_tagged && g.tag_class_id === chirp && g.min_frequency === 1800 && g.max_frequency === 4200,
      ),
      JSON.stringify(
        found.map((g) => [g.machine_tagged, g.tag_class_id, chirp, g.min_frequency, g.max_frequency, g.start_time]),
      ),
    )
    assert.ok(
      !found.some((g) => overlaps(g, 2, 2.3) || overlaps(g, 11, 11.3) || overlaps(g, 14, 14.3)),
      JSON.stringify(found),
    )
  }
  assert.ok(Math.abs(a[0].start_time - b[0].start_time) <= 0.05, `${a[0].start_time} vs ${b[0].start_time}`)
  assert.is(results.length, 2)
  assert.ok(
    results.every((r) => /: \d+ windows scored, best 0\.\d{3}, (1 tag|[23] tags)$/.test(r.notes)),
    JSON.stringify(results),
  )
})

test('a file without the call gets no tag above minimumStrength, and its result file says what was scored', async () => {
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const quiet = await storedWav(
    t.db,
    config,
    alice,
    library,
    signal(12, 32000, [trill(3), falling(7)], 0.02, 51),
    32000,
  )
  const { tags, results } = await discover([quiet], source)
  assert.equal(await tags(quiet), [])
  assert.is(results.length, 1)
  const csv = await readStored(results[0].result_file)
  const [header, row] = csv.trim().split('\n')
  assert.is(header, 'mediaFile,alias,windowsScored,bestScore,tagsWritten,note')
  const [file, alias, windows, best, written] = row.split(',')
  assert.is(
    alias,
    (await t.db.selectFrom('media_files').select('alias').where('id', '=', quiet).executeTakeFirstOrThrow()).alias,
  )
  assert.equal([Number(file), Number(written)], [quiet, 0])
  assert.ok(Number(windows) > 200 && Number(best) < 0.5, row)
})

test('each found call has the class of the examples it is like', async () => {
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const whistling = await makeTagClass(t.db, alice, library, 'whistle')
  const source = await chirpExamples({ chirp, whistle: whistling })
  const target = await storedWav(
    t.db,
    config,
    alice,
    library,
    signal(12, 44100, [whistle(2), rising(8)], 0.02, 61),
    44100,
  )
  const { tags } = await discover([target], source)
  const found = await tags(target)
  const at = (from: number) => found.find((g) => overlaps(g, from, from + 0.3))
  assert.is(at(2)?.tag_class_id, whistling, JSON.stringify(found))
  assert.is(at(8)?.tag_class_id, chirp, JSON.stringify(found))
  assert.equal([at(2)!.min_frequency, at(2)!.max_frequency], [1000, 1400])
})

test('a file shorter than the window is scanned with the window fitted to it; tags stay within the file and its band', async () => {
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const short = await storedWav(
    t.db,
    config,
    alice,
    library,
    signal(0.25, 8000, [{ from: 0.02, to: 0.24, frequency: 2000, toFrequency: 3500 }], 0.02, 71),
    8000,
  )
  const { tags, results } = await discover([short], source, { windowSizeInSeconds: '1', minimumStrength: '0' })
  const found = await tags(short)
  assert.is(found.length, 1)
  assert.equal([found[0].start_time, found[0].end_time, found[0].max_frequency], [0, 0.25, 4000])
  assert.match(results[0].notes, /the file is shorter than the window: one window of 0\.25 s/)
})

test('a run on a destination under review learns from the decisions: yes as an example, no as a counter-example, decided tags kept', async () => {
  // a call of another species much like the chirp, which reviewers reject
  const alike = (from: number): Tone => ({ from, to: from + 0.3, frequency: 2300, toFrequency: 4300, amplitude: 0.4 })
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const target = await storedWav(
    t.db,
    config,
    alice,
    library,
    signal(16, 22050, [rising(2), whistle(5), alike(7), whistle(10), alike(12)], 0.02, 91),
    22050,
  )
  const everything = { numberOfTagsToDiscover: '100', minimumStrength: '0' }
  // a sound (0.3 s) is found when a tag over its middle has the default minimum strength
  const found = (tags: Array<{ start_time: number; end_time: number; strength: number }>, at: number) =>
    tags.some((g) => overlaps(g, at + 0.1, at + 0.2) && g.strength >= 0.5)
  // without the decisions
  const before = await (await discover([target], source, { ...everything, learnFromReviews: '0' })).tags(target)

  const destination = await makeTagSet(t.db, alice, library)
  const yes = await makeTag(
    t.db,
    alice,
    { tagSet: destination, mediaFile: target, tagClass: chirp },
    { startTime: 5, endTime: 5.3, minFrequency: 1800, maxFrequency: 4200 },
  )
  const no = await makeTag(
    t.db,
    alice,
    { tagSet: destination, mediaFile: target, tagClass: chirp },
    { startTime: 7, endTime: 7.3, minFrequency: 1800, maxFrequency: 4200 },
  )
  const undecided = await makeTag(
    t.db,
    alice,
    { tagSet: destination, mediaFile: target, tagClass: chirp },
    { startTime: 14, endTime: 14.3, minFrequency: 1800, maxFrequency: 4200 },
  )
  await t.db.updateTable('tags').set({ machine_tagged: true }).where('id', 'in', [yes, no, undecided]).execute()
  for (const [tag, decision] of [
    [yes, 'yes'],
    [no, 'no'],
  ] as const) {
    const res = await t.call('POST', '/api/v0/tagReview/', { as: alice, body: { tag, decision } })
    assert.is(res.statusCode, 201, JSON.stringify(res.data))
  }
  const runInto = async () => {
    const project = await makeProject(t.db, alice)
    await addToProject(t.db, project, [target])
    const id = await createJob(project, 1, {
      sourceTagSet: String(source),
      destinationTagSet: String(destination),
      windowSizeInSeconds: '0.3',
      ...everything,
    })
    assert.is((await waitForStatus(t.db, id, [4, 5, 6], 120)).status_id, 6)
    return t.db.selectFrom('tags').selectAll().where('tag_set_id', '=', destination).orderBy('start_time').execute()
  }
  const after = await runInto()
  // the whistle marked yes taught the other whistle; the look-alike marked no taught the other one; the chirp stays
  assert.ok(!found(before, 10) && found(after, 10), 'the other whistle is found once a whistle is marked yes')
  const near = (tags: Array<{ start_time: number; end_time: number; strength: number }>, at: number) =>
    JSON.stringify(tags.filter((g) => Math.abs(g.start_time - at) < 0.4).map((g) => [g.start_time, g.strength]))
  // the other look-alike, almost the chirp (2,300-4,300 Hz against 2,000-4,000 Hz), loses a quarter of its strength or more
  const strongest = (tags: Array<{ start_time: number; end_time: number; strength: number }>, at: number) =>
    Math.max(0, ...tags.filter((g) => overlaps(g, at + 0.1, at + 0.2)).map((g) => g.strength))
  assert.ok(
    found(before, 12) && strongest(after, 12) <= 0.75 * strongest(before, 12),
    `the other look-alike is weaker once one is marked no: ${near(before, 12)} -> ${near(after, 12)}`,
  )
  assert.ok(found(before, 2) && found(after, 2), 'the chirp is found before and after')
  // decided tags kept, nothing written over them, the undecided machine tag replaced
  const ids = after.map((g) => g.id)
  assert.ok(ids.includes(yes) && ids.includes(no) && !ids.includes(undecided))
  assert.equal(
    after
      .filter((g) => overlaps(g, 5, 5.3) || overlaps(g, 7, 7.3))
      .map((g) => g.id)
      .sort(),
    [yes, no].sort(),
  )
  // run again: the same tags, none twice
  const again = await runInto()
  assert.is(again.length, after.length)
  assert.equal(again.filter((g) => g.id === yes || g.id === no).length, 2)
})

test('a call hidden among a louder sound common in the searched files, unlike the examples and every counter-example, is found first', async () => {
  // the distractor: a steady tone in the middle of the chirps' band, twice as loud, every second and a half of every file
  const steady = (from: number): Tone => ({ from, to: from + 0.3, frequency: 3000, amplitude: 0.8 })
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const calls = [7.3, 12.8, 3.7]
  const files = []
  for (const [i, at] of calls.entries()) {
    const distractors = Array.from({ length: 13 }, (_, k) => steady(0.5 + 1.5 * k)).filter(
      (d) => Math.abs(d.from - at) > 0.6,
    )
    files.push(
      await storedWav(
        t.db,
        config,
        alice,
        library,
        signal(20, 22050, [...distractors, { ...rising(at), amplitude: 0.3 }], 0.02, 101 + i),
        22050,
      ),
    )
  }
  const { tags } = await discover(files, source, { numberOfTagsToDiscover: '1' })
  for (const [i, file] of files.entries()) {
    const found = await tags(file)
    assert.ok(found.length === 1 && overlaps(found[0], calls[i], calls[i] + 0.3), `file ${i}: ${JSON.stringify(found)}`)
  }
})

test('a 3 ms ultrasonic chirp at 384 kHz is found among clicks and noise from 3 examples', async () => {
  const rate = 384000
  const sweep = (from: number): Tone => ({
    from,
    to: from + 0.003,
    frequency: 80000,
    toFrequency: 40000,
    amplitude: 0.5,
  })
  /** noise and chirps, with a click (a few samples of a loud impulse) every 7 ms */
  const recording = (seconds: number, chirps: number[], seed: number) => {
    const samples = signal(seconds, rate, chirps.map(sweep), 0.02, seed)
    for (let at = 0.002; at < seconds; at += 0.007) {
      const i = Math.round(at * rate)
      if (chirps.some((c) => at > c - 0.001 && at < c + 0.004)) continue
      for (let k = 0; k < 6 && i + k < samples.length; k++) samples[i + k] += (k % 2 ? -0.6 : 0.6) * (1 - k / 6)
    }
    return samples
  }
  const bat = await makeTagClass(t.db, alice, library, 'bat')
  const exampleCalls = [0.05, 0.12, 0.2]
  const examples = await storedWav(t.db, config, alice, library, recording(0.3, exampleCalls, 111), rate)
  const source = await makeTagSet(t.db, alice, library)
  for (const at of exampleCalls) {
    await makeTag(
      t.db,
      alice,
      { tagSet: source, mediaFile: examples, tagClass: bat },
      { startTime: at, endTime: at + 0.003, minFrequency: 38000, maxFrequency: 82000 },
    )
  }
  const calls = [0.1, 0.23, 0.41, 0.57, 0.8]
  const searched = await storedWav(t.db, config, alice, library, recording(1, calls, 112), rate)
  const { tags } = await discover([searched], source, { numberOfTagsToDiscover: '10', windowSizeInSeconds: '0.003' })
  const found = await tags(searched)
  const onCall = found.filter((g) => calls.some((c) => overlaps(g, c, c + 0.003)))
  assert.ok(
    onCall.length >= 4,
    `${onCall.length} of 5 chirps found: ${JSON.stringify(found.map((g) => [g.start_time, g.strength]))}`,
  )
  assert.ok(
    found.length - onCall.length <= 1,
    `tags off the chirps: ${JSON.stringify(found.map((g) => [g.start_time, g.strength]))}`,
  )
  assert.ok(
    found.every((g) => g.end_time - g.start_time < 0.01 && g.min_frequency === 38000 && g.max_frequency === 82000),
  )
})

test('a re-run into a destination under review writes nothing twice, also in the files nobody reviewed', async () => {
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const reviewed = await storedWav(t.db, config, alice, library, signal(10, 22050, [rising(3)], 0.02, 121), 22050)
  const unreviewed = await storedWav(t.db, config, alice, library, signal(10, 22050, [rising(6)], 0.02, 122), 22050)
  const first = await discover([reviewed, unreviewed], source)
  const [onReviewed] = await first.tags(reviewed)
  const before = await first.tags(unreviewed)
  assert.ok(overlaps(onReviewed, 3, 3.3) && before.length >= 1 && overlaps(before[0], 6, 6.3))
  const res = await t.call('POST', '/api/v0/tagReview/', { as: alice, body: { tag: onReviewed.id, decision: 'yes' } })
  assert.is(res.statusCode, 201, JSON.stringify(res.data))
  const destination = onReviewed.tag_set_id
  const project = await makeProject(t.db, alice)
  await addToProject(t.db, project, [reviewed, unreviewed])
  const id = await createJob(project, 1, {
    sourceTagSet: String(source),
    destinationTagSet: String(destination),
    numberOfTagsToDiscover: '3',
    windowSizeInSeconds: '0.3',
  })
  assert.is((await waitForStatus(t.db, id, [4, 5, 6], 120)).status_id, 6)
  const after = await t.db
    .selectFrom('tags')
    .selectAll()
    .where('tag_set_id', '=', destination)
    .where('media_file_id', '=', unreviewed)
    .execute()
  assert.is(after.length, before.length, JSON.stringify(after.map((g) => [g.start_time, g.strength])))
  assert.ok(!after.some((g) => before.some((b) => b.id === g.id)), 'the undecided machine tags were replaced')
  const kept = await t.db
    .selectFrom('tags')
    .selectAll()
    .where('tag_set_id', '=', destination)
    .where('media_file_id', '=', reviewed)
    .execute()
  assert.ok(kept.some((g) => g.id === onReviewed.id) && kept.filter((g) => overlaps(g, 3, 3.3)).length === 1)
})

test('a file that cannot be decoded is listed with the reason, and the job goes on with the others', async () => {
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const source = await chirpExamples({ chirp })
  const missing = await makeMediaFile(t.db, alice, library) // a row whose bytes were never stored
  const good = await storedWav(t.db, config, alice, library, signal(8, 22050, [rising(4)], 0.02, 81), 22050)
  const { tags, results } = await discover([missing, good], source)
  assert.ok(overlaps((await tags(good))[0], 4, 4.3))
  const notes = results.map((r) => r.notes)
  assert.ok(
    notes.some(
      (n) => n.startsWith(`media file ${missing} (`) && n.includes(`): not analysed: its stored file cannot be read`),
    ),
    JSON.stringify(notes),
  )
})

test('unsupervised discovery separates two distinct tones into two clusters', async () => {
  const media = await storedWav(
    t.db,
    config,
    alice,
    library,
    signal(
      10,
      RATE,
      [
        { from: 0, to: 5, frequency: 600 },
        { from: 5, to: 10, frequency: 2000 },
      ],
      0.02,
      21,
    ),
    RATE,
  )
  const destination = await makeTagSet(t.db, alice, library)
  const project = await makeProject(t.db, alice)
  const id = await createJob(project, 7, {
    numberOfTagsToDiscover: '2',
    windowSizeInSeconds: '1',
    destinationTagSet: String(destination),
    mediaFileId: String(media),
    seed: '3',
  })
  const job = await waitForStatus(t.db, id, [4, 5, 6], 120)
  assert.is(job.status_id, 6)
  const tags = await t.db
    .selectFrom('tags as g')
    .innerJoin('tag_classes as c', 'c.id', 'g.tag_class_id')
    .select(['g.start_time', 'g.end_time', 'c.class_name', 'g.machine_tagged'])
    .where('g.tag_set_id', '=', destination)
    .orderBy('g.start_time')
    .execute()
  assert.is(tags.length, 19)
  assert.ok(tags.every((g) => g.machine_tagged))
  const first = tags.filter((g) => g.end_time <= 5).map((g) => g.class_name)
  const second = tags.filter((g) => g.start_time >= 5).map((g) => g.class_name)
  assert.equal(new Set(first), new Set(['cluster-1']))
  assert.equal(new Set(second), new Set(['cluster-2']))
})

test('a discovery that cannot run says why, naming the tag set and the media file as people know them', async () => {
  const project = await makeProject(t.db, alice)
  const media = await storedWav(t.db, config, alice, library, signal(2, RATE, [], 0.02, 5), RATE)
  await addToProject(t.db, project, [media])
  const empty = await makeTagSet(t.db, alice, library, 'no examples yet')
  const destination = await makeTagSet(t.db, alice, library)
  const errorOf = async (id: number) => {
    assert.is((await waitForStatus(t.db, id, [4, 5, 6], 120)).status_id, 4)
    return (
      await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', id).executeTakeFirstOrThrow()
    ).notes
  }
  const supervised = await createJob(project, 1, {
    sourceTagSet: String(empty),
    destinationTagSet: String(destination),
    numberOfTagsToDiscover: '3',
    windowSizeInSeconds: '0.3',
  })
  assert.is(
    await errorOf(supervised),
    `The sourceTagSet, tag set ${empty} (no examples yet), has no tags to learn from.`,
  )
  const missing = await makeMediaFile(t.db, alice, library, { alias: 'siteB/20260601_050000.WAV' }) // its bytes were never stored
  const unsupervised = await createJob(project, 7, {
    numberOfTagsToDiscover: '2',
    windowSizeInSeconds: '1',
    destinationTagSet: String(destination),
    mediaFileId: String(missing),
  })
  assert.match(
    await errorOf(unsupervised),
    new RegExp(`^media file ${missing} \\(siteB/20260601_050000\\.WAV\\): its stored file cannot be read`),
  )
})

test('discovery parameters are checked when the job is created', async () => {
  const project = await makeProject(t.db, alice)
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'discovery',
      project,
      type: 1,
      parameters: { sourceTagSet: '999999', numberOfTagsToDiscover: 'x', windowSizeInSeconds: '1' },
    },
  })
  assert.is(res.statusCode, 400)
  assert.equal(res.data, {
    parameters: {
      sourceTagSet: ['Invalid pk "999999" - object does not exist.'],
      destinationTagSet: ['This field is required.'],
      numberOfTagsToDiscover: ['A valid integer is required.'],
    },
  })
})

test.run()
