import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, rmSync, statSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import FormData from 'form-data'
import { seededRandom } from '../server/analysis/random.js'
import { wavHeader } from '../test/helpers/wav.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { benchArgs, runBench, usageError } from './args.js'
import { BIRDNET_RATE, BIRDNET_WINDOW_SECONDS, birdnetShapedModel } from './birdnetShaped.js'
import { adminToken, cpuSeconds, json, postForm, startImportServer, uploadFile } from './importServer.js'
import { peakRssMiB, resetPeakRss } from './memory.js'
import { ROOT } from './processes.js'

// npm run bench:models [-- --hours 1 --rate 48000 --skip-speech]
//
// The models of the field through the whole path a researcher's job takes (docs/decisions.md §30, §31): a
// `mas server start --no-worker` on a data directory of its own, one recording of `--hours` hours (noise and
// chirps, 16-bit mono at `--rate` Hz) imported through the API, a model of BirdNET v2.4's shape and cost
// (bench/birdnetShaped.ts: 0.41 G multiply-adds per 3 s window, random weights) added as a site admin adds one,
// then a ModelInference job over the library and a SpeechDetection job (the bundled Silero VAD), each run by a
// `mas worker start` process of its own. For each job: real time per CPU second of the worker (audio seconds
// over the worker's user + system time, every thread counted), the wall time, the worker's peak resident memory
// (VmHWM, started again before each job) and the tags written per second of the job's wall time.
// Targets (issue 44): ModelInference ≥ 50× real time per CPU second and < 500 MB peak for a 24-hour file;
// SpeechDetection ≥ 150× real time per CPU second.

const USAGE = 'usage: npm run bench:models -- [--hours 1] [--rate 48000] [--skip-speech]'
const { values: opts } = benchArgs(USAGE, {
  options: {
    hours: { type: 'string', default: '1' },
    rate: { type: 'string', default: String(BIRDNET_RATE) },
    'skip-speech': { type: 'boolean', default: false },
  },
})
const fmt = (n: number, d = 1) => n.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d })
const HOURS = Number(opts.hours)
const RATE = Number(opts.rate)
// a WAV file's sizes are 32-bit: 16-bit mono holds at most 2^31 frames (12.4 h at 48 kHz, 27 h at 22,050 Hz)
if (HOURS * 3600 * RATE * 2 + 36 > 0xffffffff) {
  usageError(
    USAGE,
    `a WAV file holds at most 4 GiB: ${fmt(0xffffffff / 2 / RATE / 3600)} h at ${RATE} Hz; give a lower --rate (a 24-hour file: --rate 22050)`,
  )
}

/** A recording of `seconds` at `rate`: low noise with a rising chirp of 0.4 s every 2.3 s, written a second at a time. */
async function writeRecording(path: string, seconds: number, rate: number): Promise<void> {
  const out = createWriteStream(path)
  const frames = Math.round(seconds * rate)
  out.write(wavHeader({ sampleRate: rate, channels: 1, bitsPerSample: 16, dataBytes: frames * 2 }))
  const random = seededRandom(44)
  const block = Buffer.alloc(rate * 2)
  for (let at = 0; at < frames; at += rate) {
    const n = Math.min(rate, frames - at)
    for (let i = 0; i < n; i++) {
      const t = (at + i) / rate
      const inCall = t % 2.3
      const call = inCall < 0.4 ? 0.3 * Math.sin(2 * Math.PI * (2000 * inCall + 4000 * inCall * inCall)) : 0
      const sample = 0.02 * (random() * 2 - 1) + call
      block.writeInt16LE(Math.round(Math.max(-1, Math.min(1, sample)) * 32767), i * 2)
    }
    if (!out.write(n === rate ? block : block.subarray(0, n * 2))) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

interface JobFigures {
  label: string
  cpu: number
  wall: number
  peakMiB: number
  tags: number
  note: string
}

/** Runs one job with a `mas worker start` of its own on the server's data directory; the worker's figures. */
async function runJob(
  base: string,
  token: string,
  dataDir: string,
  label: string,
  body: Record<string, unknown>,
  tagSet: number,
): Promise<JobFigures> {
  const worker = spawn(process.execPath, ['bin/run.js', 'worker', 'start', '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const pid = worker.pid!
  // the worker's log, shown only when the job fails
  let log = ''
  worker.stderr!.on('data', (d) => {
    log = (log + d).slice(-4000)
  })
  try {
    // the worker has started (its heap and runtime loaded) before the job is queued, so its figures are the job's
    await new Promise((r) => setTimeout(r, 3000))
    if (!resetPeakRss(pid))
      console.log("  (the peak resident memory could not be started again: it includes the worker's start)")
    const cpu0 = cpuSeconds(pid)
    const started = performance.now()
    const job = await json(base, 'POST', '/api/v0/jobs/', token, body)
    let status = job.status as number
    while (![4, 5, 6].includes(status)) {
      await new Promise((r) => setTimeout(r, 250))
      status = (await json(base, 'GET', `/api/v0/jobs/${job.id}/`, token, undefined)).status
    }
    const wall = (performance.now() - started) / 1000
    const cpu = cpuSeconds(pid) - cpu0
    const peakMiB = peakRssMiB(pid)
    const results = await json(base, 'GET', `/api/v0/jobResultFile/?job=${job.id}`, token, undefined)
    const note = (results.results as Array<{ notes: string }>).map((r) => r.notes).join('; ')
    if (status !== 6) throw new Error(`${label}: the job ended with status ${status}: ${note}\n${log}`)
    const tags = (await json(base, 'GET', `/api/v0/tag/?tagSet=${tagSet}&page_size=1`, token, undefined))
      .count as number
    return { label, cpu, wall, peakMiB, tags, note }
  } finally {
    worker.kill('SIGTERM')
    await once(worker, 'exit')
  }
}

async function main(): Promise<void> {
  const seconds = HOURS * 3600
  console.log(
    `mas models benchmark — ${new Date().toISOString()}, ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Node ${process.version}`,
  )
  const work = tempDir('mas-bench-models-')
  const server = await startImportServer(undefined, {}, ['--no-worker'])
  try {
    const model = birdnetShapedModel()
    console.log(
      `model: BirdNET-shaped, ${fmt(model.multiplyAdds / 1e9, 3)} G multiply-adds per ${BIRDNET_WINDOW_SECONDS} s window (counted from the graph), ` +
        `${model.labels.length.toLocaleString('en')} classes, ${fmt(model.bytes.length / 2 ** 20)} MiB`,
    )
    const recording = join(work, 'dawn.wav')
    await writeRecording(recording, seconds, RATE)
    console.log(
      `recording: ${HOURS} h at ${RATE.toLocaleString('en')} Hz, 16-bit mono, ${fmt(statSync(recording).size / 2 ** 20, 0)} MiB`,
    )
    const token = await adminToken(server.base)
    const library = (await json(server.base, 'POST', '/api/v0/library/', token, { name: 'bench season' })).id as number
    await uploadFile(server, token, library, 'dawn.wav', recording)
    rmSync(recording)
    const form = new FormData()
    form.append('name', 'birdnet-shaped')
    form.append(
      'manifest',
      JSON.stringify({
        sampleRate: BIRDNET_RATE,
        windowSeconds: BIRDNET_WINDOW_SECONDS,
        input: { name: 'audio', layout: 'batch,samples' },
        outputs: { scores: 'scores', embedding: 'embedding' },
        labels: model.labels,
        version: 'bench',
      }),
    )
    form.append('file', Buffer.from(model.bytes), {
      filename: 'birdnet-shaped.onnx',
      contentType: 'application/octet-stream',
    })
    await postForm(server.base, '/api/v0/model/', token, form)

    const figures: JobFigures[] = []
    const tagSet = async (name: string) =>
      (await json(server.base, 'POST', '/api/v0/tagSet/', token, { name, library })).id as number
    const birdnet = await tagSet('BirdNET-shaped')
    figures.push(
      await runJob(
        server.base,
        token,
        server.dataDir,
        'ModelInference (BirdNET-shaped)',
        {
          name: 'bench model',
          type: 12,
          parameters: {
            model: 'birdnet-shaped',
            destinationTagSet: String(birdnet),
            library: String(library),
            minimumStrength: '0.5',
            createClasses: '1',
          },
        },
        birdnet,
      ),
    )
    if (!opts['skip-speech']) {
      const people = await tagSet('people')
      figures.push(
        await runJob(
          server.base,
          token,
          server.dataDir,
          'SpeechDetection (Silero VAD)',
          {
            name: 'bench speech',
            type: 13,
            parameters: { destinationTagSet: String(people), library: String(library) },
          },
          people,
        ),
      )
    }
    console.log(
      `\n${'job'.padEnd(34)} ${'× real time per CPU s'.padStart(22)} ${'CPU s'.padStart(8)} ${'wall s'.padStart(8)} ${'× real time'.padStart(12)} ${'peak MiB'.padStart(9)} ${'tags'.padStart(8)} ${'tags/s'.padStart(8)}`,
    )
    for (const f of figures) {
      console.log(
        `${f.label.padEnd(34)} ${fmt(seconds / f.cpu, 0).padStart(22)} ${fmt(f.cpu).padStart(8)} ${fmt(f.wall).padStart(8)} ${fmt(seconds / f.wall, 0).padStart(12)} ` +
          `${fmt(f.peakMiB, 0).padStart(9)} ${f.tags.toLocaleString('en').padStart(8)} ${fmt(f.tags / f.wall, 0).padStart(8)}`,
      )
      console.log(`  ${f.note}`)
    }
    console.log(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    )
    console.log(
      'targets: ModelInference ≥ 50× real time per CPU second, peak < 500 MB for a 24-hour file; SpeechDetection ≥ 150× real time per CPU second',
    )
  } finally {
    await server.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

await runBench(main)
