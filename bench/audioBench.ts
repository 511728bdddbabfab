import { execFileSync } from 'node:child_process'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { openAudio } from '../server/analysis/audioSource.js'
import { decodeAudio } from '../server/analysis/decode.js'
import { LocalStorage } from '../server/storage/local.js'
import { CountingStorage } from '../test/helpers/countingStorage.js'
import { benchArgs, runBench } from './args.js'
import { encodeFlac, encodeMp3 } from './encoders.js'
import { recordingBlocks, writeLongRecording } from './longRecording.js'

// How fast and in how much memory openAudio decodes (docs/decisions.md, "Streamed audio"; figures in
// BENCHMARKS.md): audio seconds per CPU second of this process for 48 kHz 16-bit mono WAV, FLAC
// (libFLAC level 5) and MP3 (LAME, 128 kbps), and the peak memory (max RSS) of a process decoding a
// multi-hour file whole, chunk by chunk, next to decodeAudio holding a one-hour file whole; and what reading
// 30 s from the middle of a long file costs (bytes read, time, memory).

const USAGE = `
usage: npm run bench:audio -- [--minutes M] [--hours H]
  --minutes M   length of the files whose decoding speed is measured (default 10)
  --hours H     length of the WAV (RF64 past 4 GiB) and FLAC files whose decoding memory is measured (default 13)
Files are generated under the system's temporary folder and removed at the end.`

const RATE = 48000

interface Decoded {
  audioSeconds: number
  cpuSeconds: number
  wallSeconds: number
  maxRssMiB: number
  bytesRead: number
}

/** what a process decodes: the whole file through openAudio, the same through decodeAudio, or 30 s from its middle */
type Mode = 'chunks' | 'whole' | 'middle'

/** Decodes `file` (in `root`) as `mode` says. */
async function decode(root: string, file: string, mode: Mode): Promise<Decoded> {
  const storage = new CountingStorage(new LocalStorage(root))
  const cpu = process.cpuUsage()
  const wall = performance.now()
  let frames = 0
  if (mode === 'whole') {
    frames = (await decodeAudio(storage.read(file))).samples.length
  } else {
    const source = await openAudio(storage, file)
    const from = mode === 'middle' ? Math.floor(source.info.frames / 2) : 0
    for await (const c of source.chunks(mode === 'middle' ? { from, to: from + 30 * RATE } : {}))
      frames += c.samples.length
  }
  const used = process.cpuUsage(cpu)
  return {
    audioSeconds: frames / RATE,
    cpuSeconds: (used.user + used.system) / 1e6,
    wallSeconds: (performance.now() - wall) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    bytesRead: storage.bytesRead,
  }
}

/** The same in a new process, so that its peak memory is its own. */
function decodeInChild(root: string, file: string, mode: Mode): Decoded {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', root, file, mode], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  })
  return JSON.parse(out) as Decoded
}

const write = (path: string, chunks: AsyncIterable<Buffer> | Iterable<Buffer>) =>
  pipeline(chunks, createWriteStream(path))
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    process.stdout.write(JSON.stringify(await decode(process.argv[3], process.argv[4], process.argv[5] as Mode)))
    return
  }
  const { values } = benchArgs(USAGE, { options: { minutes: { type: 'string' }, hours: { type: 'string' } } })
  const minutes = Number(values.minutes ?? 10),
    hours = Number(values.hours ?? 13)
  if (!(minutes > 0) || !(hours > 0)) throw new Error('--minutes and --hours are positive numbers')
  const root = mkdtempSync(join(tmpdir(), 'mas-bench-audio-'))
  const dir = join(root, 'media')
  mkdirSync(dir)
  try {
    const frames = Math.round(minutes * 60 * RATE)
    const blocks = () => recordingBlocks(frames, { sampleRate: RATE, seed: 1 })
    process.stdout.write(
      `decoding speed: ${minutes} min of 48 kHz 16-bit mono, generated, decoded whole through openAudio in chunks of 65536\n`,
    )
    await writeLongRecording(join(dir, 'speed.wav'), { hours: minutes / 60, sampleRate: RATE, seed: 1 })
    await write(join(dir, 'speed.flac'), encodeFlac(blocks(), { sampleRate: RATE, totalFrames: frames }))
    await write(join(dir, 'speed.mp3'), encodeMp3(blocks(), { sampleRate: RATE }))
    for (const name of ['speed.wav', 'speed.flac', 'speed.mp3']) {
      const d = decodeInChild(root, `media/${name}`, 'chunks')
      process.stdout.write(
        `  ${name.padEnd(11)} ${mib(statSync(join(dir, name)).size).padStart(8)}: ${(d.audioSeconds / d.cpuSeconds).toFixed(0)} audio s per CPU s` +
          ` (${d.cpuSeconds.toFixed(2)} CPU s, ${d.wallSeconds.toFixed(2)} s wall, ${d.audioSeconds.toFixed(0)} audio s)\n`,
      )
    }
    rmSync(join(dir, 'speed.wav'))

    process.stdout.write(`peak memory (max RSS of the decoding process):\n`)
    await writeLongRecording(join(dir, 'hour.wav'), { hours: 1, sampleRate: RATE, seed: 2 })
    const whole = decodeInChild(root, 'media/hour.wav', 'whole')
    process.stdout.write(`  1 h WAV held whole (decodeAudio):          ${whole.maxRssMiB.toFixed(0)} MiB\n`)
    rmSync(join(dir, 'hour.wav'))
    const middles: Array<[string, Decoded, number]> = []
    for (const format of ['wav', 'flac'] as const) {
      const name = `day.${format}`
      await writeLongRecording(join(dir, name), { hours, sampleRate: RATE, seed: 3, format })
      const d = decodeInChild(root, `media/${name}`, 'chunks')
      const size = statSync(join(dir, name)).size
      process.stdout.write(
        `  ${hours} h ${format === 'wav' ? (size > 2 ** 32 ? 'RF64 WAV' : 'WAV') : 'FLAC (verbatim)'} (${mib(size)}) through openAudio: ` +
          `${d.maxRssMiB.toFixed(0)} MiB (${(d.audioSeconds / d.cpuSeconds).toFixed(0)} audio s per CPU s)\n`,
      )
      middles.push([
        `${hours} h ${format === 'wav' ? 'WAV' : 'FLAC (verbatim)'}`,
        decodeInChild(root, `media/${name}`, 'middle'),
        size,
      ])
      rmSync(join(dir, name))
    }
    await write(
      join(dir, 'hour.mp3'),
      encodeMp3(recordingBlocks(3600 * RATE, { sampleRate: RATE, seed: 4 }), { sampleRate: RATE }),
    )
    middles.push([
      '1 h MP3 (128 kbps)',
      decodeInChild(root, 'media/hour.mp3', 'middle'),
      statSync(join(dir, 'hour.mp3')).size,
    ])
    process.stdout.write("30 s from the middle (the spectrogram route's read), in a new process:\n")
    for (const [what, d, size] of middles) {
      process.stdout.write(
        `  ${what}: ${mib(d.bytesRead)} of ${mib(size)} read, ${d.cpuSeconds.toFixed(2)} CPU s, ${d.wallSeconds.toFixed(2)} s wall, ` +
          `${d.maxRssMiB.toFixed(0)} MiB max RSS\n`,
      )
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

void runBench(main)
