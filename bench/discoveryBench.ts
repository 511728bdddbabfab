import { spawn } from 'node:child_process'
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../test/helpers/tempDir.js'
import { benchArgs, runBench, usageError } from './args.js'
import {
  discoveryDataDir,
  hiddenCalls,
  trainingTags,
  loadDiscoveryData,
  resampled,
  type DiscoveryData,
  type HiddenCall,
} from './discoveryData.js'
import { wavOf } from '../test/helpers/signals.js'
import {
  episodeLines,
  FEW_SHOT_RATES,
  fewShotTable,
  loadFewShotSets,
  runFewShotSet,
  type FewShotClient,
  type SetResult,
} from './fewShot.js'
import { adminToken, cpuSeconds, json, pool, startImportServer, uploadFile, type ImportServer } from './importServer.js'
import { writeLongRecording } from './longRecording.js'
import { memoryOf } from './memory.js'

// Discovery benchmark (npm run bench:discovery), the figures of docs/decisions.md §20:
//  1. hits: SupervisedTagDiscovery through the API of a `mas server start` (its worker inside), on 10
//     hidden-call files (seed 1) at 22,050 and 48,000 Hz, learning from the labelled training calls tagged
//     with their band and full-band: in how many files the strongest tag overlaps the hidden call;
//  2. clip-level ROC AUC of the testTrue clips against the testFalse clips (their strongest window each);
//  3. the learning loop of review: discovery, 20 tags of the review queue decided from the truth, discovery again;
//  4. a generated H-hour 48 kHz recording (RF64 WAV over 4 GiB) imported, a 30 s picture drawn from its
//     middle and discovery run over it, with the peak PSS of the server process (worker inside), then of a
//     separate `mas worker start` (every core) and its audio seconds per CPU second, decoding counted;
//  5. few-shot within a recording (bench/fewShot.ts): on the four few-shot sets of the shared data, at each
//     recording's own rate and at 48,000 Hz, precision, recall and F of the calls found after the examples.

const PARTS = ['hidden', 'loop', 'long', 'fewshot'] as const
type Part = (typeof PARTS)[number]

const USAGE = `
Usage: npm run bench:discovery -- [--only PARTS] [--hours H] [--seed N]
  --only PARTS  the parts to run, comma-separated (default all): hidden (the hidden-call hits and the AUC),
                loop (the learning loop of review), long (the long recording), fewshot (few-shot within a recording)
  --hours H     length of the generated 48 kHz recording (default 1; over 4 GiB, about 12.4 h, it is RF64)
  --seed N      seed of the hidden-call files (default 1)
The labelled recordings: each set in MAS_SHARED_DATA, else in ../shared/data beside this checkout;
MAS_DISCOVERY_DATA names the hidden-call set (qut-currawong) alone.`

const { values } = benchArgs(USAGE, {
  options: {
    only: { type: 'string', default: PARTS.join(',') },
    hours: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
  },
})
const HOURS = Number(values.hours)
const SEED = Number(values.seed)
const ONLY = new Set(
  values.only
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean),
)
for (const p of ONLY)
  if (!(PARTS as readonly string[]).includes(p)) usageError(USAGE, `--only: no part ${p} (parts: ${PARTS.join(', ')})`)
const runs = (part: Part) => ONLY.has(part)

type Api = (method: string, path: string, body?: unknown) => Promise<any>

/** A job run to its end through the API; its destination's tags. */
async function discover(api: Api, mediaFiles: number[], source: number, params: Record<string, string>, into?: number) {
  const destination =
    into ??
    (
      await api('POST', '/api/v0/tagSet/', {
        name: `found-${Math.random().toString(36).slice(2, 8)}`,
        library: params.library,
      })
    ).id
  const project = (await api('POST', '/api/v0/project/', { name: `p-${destination}`, type: 1 })).id
  for (const m of mediaFiles) await api('POST', `/api/v0/project/${project}/mediaFiles/add/`, { id: m })
  const { library: _, ...rest } = params
  const job = await api('POST', '/api/v0/jobs/', {
    name: 'discovery',
    project,
    type: 1,
    parameters: {
      sourceTagSet: String(source),
      destinationTagSet: String(destination),
      numberOfTagsToDiscover: '1',
      ...rest,
    },
  })
  for (;;) {
    const j = await api('GET', `/api/v0/jobs/${job.id}/`)
    if (j.status === 6) break
    if (j.status === 4 || j.status === 5) throw new Error(`job ${job.id} ended in status ${j.status}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  const tags: Array<{ id: number; mediaFile: number; startTime: number; endTime: number; strength: number }> = []
  for (let page = 1; ; page++) {
    const r = await api('GET', `/api/v0/tag/?tagSet=${destination}&page=${page}&page_size=1000`)
    tags.push(...r.results)
    if (!r.next) break
  }
  return { tags, destination }
}

async function main() {
  const server = await startImportServer(undefined, {}, ['--with-worker'])
  try {
    const token = await adminToken(server.base)
    const api: Api = (method, path, body) => json(server.base, method, path, token, body)
    if (runs('hidden') || runs('loop') || runs('long')) await hiddenCallParts(server, token, api)
    if (runs('fewshot')) await fewShot(server, token, api)
  } finally {
    await server.stop()
  }
}

/** Parts 1 to 4, on the hidden-call set: the training calls imported and tagged, then the parts asked for. */
async function hiddenCallParts(server: ImportServer, token: string, api: Api) {
  const found = discoveryDataDir()
  if ('error' in found) throw new Error(found.error)
  const data = await loadDiscoveryData(found.dir)
  const window = [...data.train.map((t) => t.end - t.start)].sort((a, b) => a - b)[Math.floor(data.train.length / 2)]
  console.log(
    `data: ${data.train.length} training calls, ${data.testTrue.length} testTrue and ${data.testFalse.length} testFalse clips (duplicates removed); window ${window.toFixed(3)} s`,
  )
  const library = (await api('POST', '/api/v0/library/', { name: 'discovery' })).id
  const cls = (
    await api('POST', '/api/v0/tagClass/', { className: 'currawong', displayName: 'Pied currawong', library })
  ).id
  const sources: Record<string, number> = {}
  const trainIds = await Promise.all(
    data.train.map((c) => uploadFile(server, token, library, `train/${c.name}`, wavOf(c.samples, c.sampleRate))),
  )
  for (const banded of [true, false]) {
    const set = (
      await api('POST', '/api/v0/tagSet/', { name: banded ? 'examples (band)' : 'examples (full band)', library })
    ).id
    const tags = await trainingTags(data, trainIds, { tagSet: set, tagClass: cls }, banded)
    await api('POST', '/api/v0/tag/', tags)
    sources[banded ? 'band' : 'full'] = set
  }
  const hidden = hiddenCalls(data, 10, SEED)
  const hiddenIds: Record<number, number[]> = {}
  if (runs('hidden') || runs('loop')) {
    for (const rate of [22050, 48000]) {
      hiddenIds[rate] = []
      for (const h of hidden)
        hiddenIds[rate].push(
          await uploadFile(
            server,
            token,
            library,
            `hidden-${rate}/${h.name}`,
            wavOf(resampled(h.samples, h.sampleRate, rate), rate),
          ),
        )
    }
  }
  if (runs('hidden')) {
    console.log('\n1. hits: files whose strongest tag overlaps the hidden call (target >= 9 of 10 in every cell)')
    for (const examples of ['band', 'full'] as const) {
      for (const rate of [22050, 48000]) {
        const { tags } = await discover(api, hiddenIds[rate], sources[examples], {
          windowSizeInSeconds: String(window),
          library: String(library),
        })
        const hits = hidden.filter((h, i) => {
          const t = tags.find((g) => g.mediaFile === hiddenIds[rate][i])
          return t !== undefined && t.startTime < h.callEnd && t.endTime > h.callStart
        }).length
        const tagged = new Set(tags.map((t) => t.mediaFile)).size
        console.log(
          `   examples ${examples.padEnd(4)} files ${rate} Hz: ${hits} of 10 (${tagged} files tagged at the default minimumStrength)`,
        )
      }
    }
    console.log(
      '\n2. clip-level ROC AUC, testTrue against testFalse, the strongest window of each clip (target >= 0.97)',
    )
    const clipIds = await clipFiles(server, token, library, data)
    for (const examples of ['band', 'full'] as const) {
      const { tags } = await discover(api, [...clipIds.positive, ...clipIds.negative], sources[examples], {
        windowSizeInSeconds: String(window),
        minimumStrength: '0',
        library: String(library),
      })
      const score = (id: number) => tags.find((t) => t.mediaFile === id)?.strength ?? 0
      const pos = clipIds.positive.map(score),
        neg = clipIds.negative.map(score)
      let auc = 0
      for (const p of pos) for (const n of neg) auc += p > n ? 1 : p === n ? 0.5 : 0
      auc /= pos.length * neg.length
      const above = (xs: number[]) => xs.filter((x) => x >= 0.5).length
      console.log(
        `   examples ${examples.padEnd(4)}: AUC ${auc.toFixed(3)}; at strength >= 0.5: ${above(pos)} of ${pos.length} call clips, ${above(neg)} of ${neg.length} other clips`,
      )
    }
  }
  if (runs('loop')) await learningLoop(api, library, sources.band, hidden, hiddenIds[48000], window)
  if (runs('long')) await longRecording(server, token, api, library, sources.band, window)
}

/** Part 5: few-shot within a recording, every few-shot set at each rate; a line per recording × class, then the table. */
async function fewShot(server: ImportServer, token: string, api: Api) {
  const sets = await loadFewShotSets()
  const client: FewShotClient = { api, upload: (library, name, wav) => uploadFile(server, token, library, name, wav) }
  console.log(
    '\n5. few-shot within a recording: the first min(5, calls - 1) calls of each class are the examples; the later ones are to be found' +
      " (tags merged, counted from the last example's end, matched at time IoU >= 0.3; target F >= 0.8 in every judged row; npm run test:discovery asserts 0.7)",
  )
  const results: SetResult[] = []
  for (const set of sets) {
    for (const rate of FEW_SHOT_RATES) {
      const t0 = Date.now()
      const result = await runFewShotSet(client, set, rate)
      results.push(result)
      for (const line of episodeLines(result)) console.log(`   ${line}`)
      console.log(`   (${((Date.now() - t0) / 1000).toFixed(1)} s)`)
    }
  }
  console.log('')
  for (const line of fewShotTable(results)) console.log(`   ${line}`)
}

/**
 * The learning loop of review: discovery (3 tags a file, every strength) on the 48 kHz hidden-call files,
 * a scripted reviewer deciding the 20 tags of the review queue from the truth, and discovery again into the
 * same tag set, which learns from the decisions.
 */
async function learningLoop(
  api: Api,
  library: number,
  source: number,
  hidden: HiddenCall[],
  files: number[],
  window: number,
) {
  const params = {
    windowSizeInSeconds: String(window),
    library: String(library),
    numberOfTagsToDiscover: '3',
    minimumStrength: '0',
  }
  const isCall = (t: { mediaFile: number; startTime: number; endTime: number }) => {
    const h = hidden[files.indexOf(t.mediaFile)]
    return t.startTime < h.callEnd && t.endTime > h.callStart
  }
  type Found = { id: number; mediaFile: number; startTime: number; endTime: number; strength: number }
  /** the clip of a hidden-call file a tag lies most on */
  const clipOf = (t: Found) => {
    const overlap = (p: { start: number; end: number }) => Math.min(p.end, t.endTime) - Math.max(p.start, t.startTime)
    return hidden[files.indexOf(t.mediaFile)].parts.reduce((a, b) => (overlap(b) > overlap(a) ? b : a)).name
  }
  const rejected = new Map<number, string>() // tag id → its clip
  const figures = (tags: Found[]) => {
    const strongest = files.map((f) => tags.filter((t) => t.mediaFile === f).sort((a, b) => b.strength - a.strength)[0])
    const above = tags.filter((t) => t.strength >= 0.5)
    const elsewhere = above.filter((t) => !isCall(t))
    const fresh = elsewhere.filter((t) => !rejected.has(t.id))
    const twins = fresh.filter((t) => [...rejected.values()].includes(clipOf(t))).length
    return (
      `${strongest.filter((t) => t && isCall(t)).length} of 10 hits; at strength >= 0.5: ${above.filter(isCall).length} tags on calls, ${elsewhere.length} elsewhere` +
      (rejected.size
        ? ` (${elsewhere.length - fresh.length} of them the rejected tags, kept with their decisions; of the ${fresh.length} new, ${twins} on a clip rejected in another file)`
        : '')
    )
  }
  const first = await discover(api, files, source, params)
  const firstFigures = figures(first.tags)
  const queue = (await api('GET', `/api/v0/tagSet/${first.destination}/reviewQueue/?n=20`)).results as Array<{
    id: number
    mediaFile: number
    startTime: number
    endTime: number
  }>
  let yes = 0
  for (const t of queue) {
    const decision = isCall(t) ? 'yes' : 'no'
    if (decision === 'yes') yes++
    else rejected.set(t.id, clipOf(t as Found))
    await api('POST', '/api/v0/tagReview/', { tag: t.id, decision })
  }
  const second = await discover(api, files, source, params, first.destination)
  console.log('\n3. learning from review (48 kHz files, band-limited examples, 3 tags a file at any strength)')
  console.log(`   first run:  ${firstFigures}`)
  console.log(
    `   a scripted reviewer decided the 20 tags of the queue from the truth: ${yes} yes, ${queue.length - yes} no`,
  )
  console.log(`   second run: ${figures(second.tags)}`)
}

async function clipFiles(s: ImportServer, token: string, library: number, data: DiscoveryData) {
  const positive: number[] = [],
    negative: number[] = []
  await pool(
    [...data.testTrue.map((c) => ({ c, out: positive })), ...data.testFalse.map((c) => ({ c, out: negative }))],
    4,
    async ({ c, out }) => {
      out.push(
        await uploadFile(
          s,
          token,
          library,
          `clips/${out === positive ? 'true' : 'false'}/${c.name}`,
          wavOf(c.samples, c.sampleRate),
        ),
      )
    },
  )
  return { positive, negative }
}

/** Peak PSS (MiB) of one process (its threads included) while `work` runs, sampled every 200 ms. */
async function peakPss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = memoryOf([pid]).pssMiB
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, memoryOf([pid]).pssMiB)
    } catch {
      /* ended */
    }
  }, 200)
  try {
    const result = await work()
    return { result, peak: Math.max(peak, memoryOf([pid]).pssMiB) }
  } finally {
    clearInterval(timer)
  }
}

async function longRecording(
  server: ImportServer,
  token: string,
  api: Api,
  library: number,
  source: number,
  window: number,
) {
  const dir = tempDir('mas-bench-long-')
  try {
    const path = join(dir, 'long.wav')
    const started = Date.now()
    await writeLongRecording(path, { hours: HOURS, sampleRate: 48000, seed: 7 })
    const bytes = statSync(path).size
    console.log(
      `\n4. a ${HOURS} h 48 kHz 16-bit recording (${(bytes / 2 ** 30).toFixed(2)} GiB${bytes > 2 ** 32 ? ', RF64' : ''}), written in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    )
    const id = await uploadFile(server, token, library, `long/long-${HOURS}h.wav`, path)
    rmSync(path)
    const middle = HOURS * 1800
    const picture = await peakPss(server.child.pid!, async () => {
      const res = await fetch(
        `${server.base}/api/v0/mediaFile/${id}/spectra/?format=png&startTime=${middle}&endTime=${middle + 30}`,
        { headers: { authorization: `Token ${token}` } },
      )
      if (!res.ok) throw new Error(`spectrogram: ${res.status} ${await res.text()}`)
      return (await res.arrayBuffer()).byteLength
    })
    console.log(
      `   30 s picture from its middle: ${picture.result} bytes; peak PSS of the server process ${picture.peak.toFixed(0)} MiB (target < 400)`,
    )
    const cpu0 = cpuSeconds(server.child.pid!)
    const t0 = Date.now()
    const inside = await peakPss(server.child.pid!, () =>
      discover(api, [id], source, { windowSizeInSeconds: String(window), library: String(library) }),
    )
    const cpu = cpuSeconds(server.child.pid!) - cpu0
    const wall = (Date.now() - t0) / 1000
    console.log(
      `   discovery by the server's own worker: ${inside.result.tags.length} tags, ${wall.toFixed(0)} s, ${cpu.toFixed(0)} CPU s` +
        ` (${((HOURS * 3600) / cpu).toFixed(0)}x real time per CPU second); peak PSS of the server process ${inside.peak.toFixed(0)} MiB (target < 400)`,
    )
    await separateWorker(server, api, id, source, window, library)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The same discovery run by a `mas worker start` of its own (every core), while the server's worker is held off by a queued job. */
async function separateWorker(
  server: ImportServer,
  api: Api,
  id: number,
  source: number,
  window: number,
  library: number,
) {
  // the server's own worker runs one job at a time: keep it busy with a long Test job so the separate worker takes the discovery
  const project = (await api('POST', '/api/v0/project/', { name: 'hold', type: 1 })).id
  const hold = await api('POST', '/api/v0/jobs/', {
    name: 'hold',
    project,
    type: 8,
    parameters: { numToComplete: '100000', secondsPerStep: '1' },
  })
  for (;;) {
    if ((await api('GET', `/api/v0/jobs/${hold.id}/`)).status === 3) break
    await new Promise((r) => setTimeout(r, 100))
  }
  const worker = spawn(process.execPath, ['bin/run.js', 'worker', 'start', '--data-dir', server.dataDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    await new Promise((r) => setTimeout(r, 2000))
    const cpu0 = cpuSeconds(worker.pid!)
    const t0 = Date.now()
    const run = await peakPss(worker.pid!, () =>
      discover(api, [id], source, { windowSizeInSeconds: String(window), library: String(library) }),
    )
    const cpu = cpuSeconds(worker.pid!) - cpu0
    const wall = (Date.now() - t0) / 1000
    console.log(
      `   discovery by mas worker start: ${wall.toFixed(0)} s, ${cpu.toFixed(0)} CPU s, ${(cpu / wall).toFixed(2)} cores busy on average,` +
        ` ${((HOURS * 3600) / cpu).toFixed(0)}x real time per CPU second (target >= 1000); peak PSS of the worker ${run.peak.toFixed(0)} MiB (target < 400)`,
    )
  } finally {
    await api('PATCH', `/api/v0/jobs/${hold.id}/`, { requestedStatus: 5 })
    const gone = new Promise((r) => worker.once('exit', r))
    worker.kill('SIGTERM')
    await gone
  }
}

await runBench(main)
