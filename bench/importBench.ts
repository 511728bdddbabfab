import { createHash } from 'node:crypto'
import { cpus, totalmem } from 'node:os'
import { Readable } from 'node:stream'
import FormData from 'form-data'
import { makeWav, wavChunks, wavDataBytes } from '../test/helpers/wav.js'
import { adminToken, cpuSeconds, json, postForm, rawImport, startImportServer, startS3Process } from './importServer.js'
import { peakMemory, rssMiB, serverMemory } from './memory.js'
import { runBench } from './args.js'

// Import benchmark: a real `mas server start` in its own process (embedded
// database in a temporary data dir, or BENCH_DATABASE_URL), fed over loopback
// the way `mas media import` feeds it (multipart via form-data).
//   (a) many generated 1-second WAVs, several requests at a time: files/s
//   (b) two large WAVs streamed one after the other: MB/s
// and the server's peak resident memory in each phase, which must not grow
// with the file size (uploads stream to disk), and the peak PSS of the server
// with its embedded PostgreSQL (shared buffers counted once).
//
// Options (environment): BENCH_FILES (1000), BENCH_CONCURRENCY (8),
// BENCH_LARGE_MIB (1024), BENCH_LARGE_FILES (2), BENCH_DATABASE_URL,
// BENCH_STORAGE=s3: media in a bucket of an s3rver process started here (its CPU time and the
// server's are printed for each phase, to tell how much of the time is the S3 server's).

const FILES = Number(process.env.BENCH_FILES ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const LARGE_MIB = Number(process.env.BENCH_LARGE_MIB ?? 1024)
const LARGE_FILES = Number(process.env.BENCH_LARGE_FILES ?? 2)
const MiB = 1024 * 1024
const S3 = process.env.BENCH_STORAGE === 's3'

const fmt = (n: number, d = 1) => n.toFixed(d)

async function main() {
  console.log(`mas import benchmark — ${new Date().toISOString()}`)
  console.log(
    `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, ${fmt(totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}, ` +
      `database: ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL'}, storage: ${S3 ? 'bucket of an s3rver process' : 'local directory'}`,
  )
  const s3 = S3 ? await startS3Process() : undefined
  const server = await startImportServer(process.env.BENCH_DATABASE_URL, s3?.env).catch(async (e) => {
    await s3?.stop()
    throw e
  })
  const pid = server.child.pid!
  /** CPU seconds of the server and of the S3 server during `work` */
  const cpu = async <T>(work: () => Promise<T>) => {
    const before = [cpuSeconds(pid), s3 ? cpuSeconds(s3.child.pid!) : 0]
    const result = await work()
    return { ...result, server: cpuSeconds(pid) - before[0], s3: s3 ? cpuSeconds(s3.child.pid!) - before[1] : 0 }
  }
  const cpuLine = (c: { server: number; s3: number }, seconds: number) =>
    s3
      ? `    CPU: server ${fmt(c.server)} s, S3 server ${fmt(c.s3)} s (${fmt((100 * c.s3) / seconds, 0)}% of the elapsed time)`
      : `    CPU: server ${fmt(c.server)} s`
  try {
    const token = await adminToken(server.base)
    const library = (await json(server.base, 'POST', '/api/v0/library/', token, { name: 'bench' })).id
    const importPath = `/api/v0/library/${library}/mediaFiles/import/`
    const idle = serverMemory(pid, server.dataDir)
    console.log(
      `server pid ${pid} at ${server.base}, idle RSS ${fmt(rssMiB(pid))} MiB; ` +
        `mas with its embedded PostgreSQL: ${idle.processes} processes, PSS ${fmt(idle.pssMiB)} MiB`,
    )

    // (a) many small files
    const wavs = Array.from({ length: FILES }, (_, i) => makeWav({ seconds: 1, frequency: 200 + i }))
    const smallBytes = wavs.reduce((s, w) => s + w.length, 0)
    const small = await cpu(() =>
      peakMemory(pid, server.dataDir, () => rawImport(server.base, token, library, wavs, CONCURRENCY)),
    )
    console.log(
      `(a) ${FILES} × 1 s WAV (${fmt(smallBytes / FILES / 1024)} KiB each), ${CONCURRENCY} at a time: ` +
        `${fmt(small.result, 2)} s, ${fmt(FILES / small.result)} files/s, ${fmt(smallBytes / MiB / small.result)} MB/s; ` +
        `server peak RSS ${fmt(small.peak)} MiB, peak PSS with PostgreSQL ${fmt(small.peakPss)} MiB`,
    )
    console.log(cpuLine(small, small.result))

    // a re-run: one check request tells which files are already there
    const checkStarted = process.hrtime.bigint()
    const items = wavs.map((w) => ({ md5: createHash('md5').update(w).digest('hex'), size: w.length }))
    const known = await json(server.base, 'POST', `/api/v0/library/${library}/mediaFiles/check/`, token, items)
    const checkSeconds = Number(process.hrtime.bigint() - checkStarted) / 1e9
    console.log(
      `    re-run check of ${FILES} files: 1 request, ${fmt(checkSeconds * 1000, 0)} ms, ` +
        `${known.filter((k: unknown) => k !== null).length} already present`,
    )

    // (b) large files, streamed
    const seconds = Math.round((LARGE_MIB * MiB) / (44100 * 2 * 2))
    const largeBytes = 44 + wavDataBytes({ seconds, channels: 2 })
    const large = await cpu(() =>
      peakMemory(pid, server.dataDir, async () => {
        const times: number[] = []
        for (let i = 0; i < LARGE_FILES; i++) {
          const form = new FormData()
          form.append('file', Readable.from(wavChunks({ seconds, channels: 2, frequency: 300 + i })), {
            filename: `long-${i}.wav`,
            contentType: 'audio/wav',
            knownLength: largeBytes,
          })
          const started = process.hrtime.bigint()
          const status = await postForm(server.base, importPath, token, form)
          if (status !== 201) throw new Error(`large file ${i}: ${status}`)
          times.push(Number(process.hrtime.bigint() - started) / 1e9)
        }
        return times
      }),
    )
    const total = large.result.reduce((a, b) => a + b, 0)
    console.log(
      `(b) ${LARGE_FILES} × ${fmt(largeBytes / MiB, 0)} MiB WAV, one at a time: ` +
        `${large.result.map((s) => `${fmt(s, 2)} s`).join(', ')}; ${fmt((LARGE_FILES * largeBytes) / MiB / total)} MB/s; ` +
        `server peak RSS ${fmt(large.peak)} MiB, peak PSS with PostgreSQL ${fmt(large.peakPss)} MiB`,
    )
    console.log(cpuLine(large, total))
    console.log(
      JSON.stringify({
        files: FILES,
        concurrency: CONCURRENCY,
        filesPerSecond: FILES / small.result,
        smallPeakRssMiB: small.peak,
        largeMiB: largeBytes / MiB,
        largeMBps: (LARGE_FILES * largeBytes) / MiB / total,
        largePeakRssMiB: large.peak,
        smallPeakPssMiB: small.peakPss,
        largePeakPssMiB: large.peakPss,
        storage: S3 ? 's3rver' : 'local',
        smallCpu: { server: small.server, s3: small.s3 },
        largeCpu: { server: large.server, s3: large.s3 },
      }),
    )
  } finally {
    await server.stop()
    await s3?.stop()
  }
}

await runBench(main)
