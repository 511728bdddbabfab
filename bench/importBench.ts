import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, totalmem, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import FormData from 'form-data'
import pg from 'pg'
import { makeWav, wavChunks, wavDataBytes } from '../test/helpers/wav.js'

// Import benchmark: a real `mas server start` in its own process (embedded
// database in a temporary data dir, or BENCH_DATABASE_URL), fed over loopback
// the way `mas media import` feeds it (multipart via form-data).
//   (a) many generated 1-second WAVs, several requests at a time: files/s
//   (b) two large WAVs streamed one after the other: MB/s
// and the server's peak resident memory in each phase, which must not grow
// with the file size (uploads stream to disk).
//
// Options (environment): BENCH_FILES (1000), BENCH_CONCURRENCY (8),
// BENCH_LARGE_MIB (1024), BENCH_LARGE_FILES (2), BENCH_DATABASE_URL.

const FILES = Number(process.env.BENCH_FILES ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const LARGE_MIB = Number(process.env.BENCH_LARGE_MIB ?? 1024)
const LARGE_FILES = Number(process.env.BENCH_LARGE_FILES ?? 2)
const MiB = 1024 * 1024

interface Server { child: ChildProcess; base: string; dataDir: string; schema?: string }

async function withPg(url: string, work: (c: pg.Client) => Promise<unknown>) {
  const client = new pg.Client(url)
  await client.connect()
  try { await work(client) } finally { await client.end() }
}

async function startServer(): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-bench-'))
  const env: NodeJS.ProcessEnv = { ...process.env, MAS_ADMIN_USERNAME: 'bench', MAS_ADMIN_PASSWORD: 'bench-password' }
  delete env.DATABASE_URL
  let schema: string | undefined
  const url = process.env.BENCH_DATABASE_URL
  if (url) {
    // a schema of its own, so the first-admin bootstrap runs and nothing else in that database is touched
    schema = `bench_import_${randomBytes(4).toString('hex')}`
    await withPg(url, (c) => c.query(`create schema ${schema}`))
    const u = new URL(url)
    u.searchParams.set('options', `-c search_path=${schema}`)
    env.DATABASE_URL = u.toString()
  }
  const port = await freePort()
  const child = spawn(process.execPath, ['bin/run.js', 'server', 'start', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'],
    { env, stdio: ['ignore', 'inherit', 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`server exited with ${code}`))))
  for (;;) {
    const up = await Promise.race([fetch(`${base}/healthz`).then((r) => r.ok, () => false), exited])
    if (up) break
    await new Promise((r) => setTimeout(r, 200))
  }
  return { child, base, dataDir, schema }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

/** The server's resident memory (MiB) now, from /proc. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
}

/** Sample the server's RSS every 20 ms while `work` runs; the peak in MiB. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number; before: number }> {
  const before = rssMiB(pid)
  let peak = before
  const timer = setInterval(() => { peak = Math.max(peak, rssMiB(pid)) }, 20)
  try {
    const result = await work()
    return { result, peak: Math.max(peak, rssMiB(pid)), before }
  } finally {
    clearInterval(timer)
  }
}

async function json(base: string, method: string, path: string, token: string | null, body: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method, body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** POST a multipart form over one HTTP request, streaming it; resolves with the status. */
function postForm(base: string, path: string, token: string, form: FormData): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
      headers: { ...form.getHeaders(), 'content-length': String(form.getLengthSync()), authorization: `Token ${token}` },
    }, (res) => {
      res.resume()
      res.on('end', () => (res.statusCode === 201 || res.statusCode === 200 ? resolve(res.statusCode) : reject(new Error(`import: ${res.statusCode}`))))
    })
    req.on('error', reject)
    form.pipe(req)
  })
}

async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await work(items[next++])
  }))
}

const fmt = (n: number, d = 1) => n.toFixed(d)

async function main() {
  console.log(`mas import benchmark — ${new Date().toISOString()}`)
  console.log(`machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, ${fmt(totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}, ` +
    `database: ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)'}`)
  const server = await startServer()
  const pid = server.child.pid!
  try {
    const { token } = await json(server.base, 'POST', '/api-token-auth/', null, { username: 'bench', password: 'bench-password' })
    const library = (await json(server.base, 'POST', '/api/v0/library/', token, { name: 'bench' })).id
    const importPath = `/api/v0/library/${library}/mediaFiles/import/`
    console.log(`server pid ${pid} at ${server.base}, idle RSS ${fmt(rssMiB(pid))} MiB`)

    // (a) many small files
    const wavs = Array.from({ length: FILES }, (_, i) => makeWav({ seconds: 1, frequency: 200 + i }))
    const smallBytes = wavs.reduce((s, w) => s + w.length, 0)
    const small = await peakRss(pid, async () => {
      const started = process.hrtime.bigint()
      await pool(wavs.map((w, i) => ({ w, i })), CONCURRENCY, async ({ w, i }) => {
        const form = new FormData()
        form.append('file', w, { filename: `tone-${i}.wav`, contentType: 'audio/wav' })
        const status = await postForm(server.base, importPath, token, form)
        if (status !== 201) throw new Error(`file ${i}: ${status}`)
      })
      return Number(process.hrtime.bigint() - started) / 1e9
    })
    console.log(`(a) ${FILES} × 1 s WAV (${fmt(smallBytes / FILES / 1024)} KiB each), ${CONCURRENCY} at a time: ` +
      `${fmt(small.result, 2)} s, ${fmt(FILES / small.result)} files/s, ${fmt(smallBytes / MiB / small.result)} MB/s; ` +
      `server peak RSS ${fmt(small.peak)} MiB`)

    // a re-run: one check request tells which files are already there
    const checkStarted = process.hrtime.bigint()
    const items = wavs.map((w) => ({ md5: createHash('md5').update(w).digest('hex'), size: w.length }))
    const known = await json(server.base, 'POST', `/api/v0/library/${library}/mediaFiles/check/`, token, items)
    const checkSeconds = Number(process.hrtime.bigint() - checkStarted) / 1e9
    console.log(`    re-run check of ${FILES} files: 1 request, ${fmt(checkSeconds * 1000, 0)} ms, ` +
      `${known.filter((k: unknown) => k !== null).length} already present`)

    // (b) large files, streamed
    const seconds = Math.round((LARGE_MIB * MiB) / (44100 * 2 * 2))
    const largeBytes = 44 + wavDataBytes({ seconds, channels: 2 })
    const large = await peakRss(pid, async () => {
      const times: number[] = []
      for (let i = 0; i < LARGE_FILES; i++) {
        const form = new FormData()
        form.append('file', Readable.from(wavChunks({ seconds, channels: 2, frequency: 300 + i })),
          { filename: `long-${i}.wav`, contentType: 'audio/wav', knownLength: largeBytes })
        const started = process.hrtime.bigint()
        const status = await postForm(server.base, importPath, token, form)
        if (status !== 201) throw new Error(`large file ${i}: ${status}`)
        times.push(Number(process.hrtime.bigint() - started) / 1e9)
      }
      return times
    })
    const total = large.result.reduce((a, b) => a + b, 0)
    console.log(`(b) ${LARGE_FILES} × ${fmt(largeBytes / MiB, 0)} MiB WAV, one at a time: ` +
      `${large.result.map((s) => `${fmt(s, 2)} s`).join(', ')}; ${fmt((LARGE_FILES * largeBytes) / MiB / total)} MB/s; ` +
      `server peak RSS ${fmt(large.peak)} MiB`)
    console.log(JSON.stringify({
      files: FILES, concurrency: CONCURRENCY, filesPerSecond: FILES / small.result, smallPeakRssMiB: small.peak,
      largeMiB: largeBytes / MiB, largeMBps: (LARGE_FILES * largeBytes) / MiB / total, largePeakRssMiB: large.peak,
    }))
  } finally {
    server.child.kill('SIGTERM')
    await new Promise((r) => server.child.once('exit', r))
    rmSync(server.dataDir, { recursive: true, force: true })
    if (server.schema) await withPg(process.env.BENCH_DATABASE_URL!, (c) => c.query(`drop schema ${server.schema} cascade`))
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1 })
