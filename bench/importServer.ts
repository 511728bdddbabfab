import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createReadStream, readFileSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import FormData from 'form-data'
import pg from 'pg'
import { freePort, nodeArgsFrom } from './processes.js'
import { tempDir } from '../test/helpers/tempDir.js'

// What the import benchmarks share: a real `mas server start` of their own (embedded
// database in a temporary data dir, or a fresh schema of a PostgreSQL database, so the
// first-admin bootstrap runs and nothing else there is touched), JSON calls, multipart
// posts over loopback the way `mas media import` sends them, and memory sampling.

export const ADMIN = { username: 'bench', password: 'bench-password' }

export interface ImportServer {
  child: ChildProcess
  base: string
  dataDir: string
  stop(): Promise<void>
}

async function withPg(url: string, work: (c: pg.Client) => Promise<unknown>) {
  const client = new pg.Client(url)
  await client.connect()
  try {
    await work(client)
  } finally {
    await client.end()
  }
}

/** `mas server start` on its own data; `databaseUrl` gives PostgreSQL (a new schema, dropped by stop()). */
export async function startImportServer(
  databaseUrl?: string,
  extraEnv: Record<string, string> = {},
  extraArgs: string[] = [],
): Promise<ImportServer> {
  const dataDir = tempDir('mas-bench-')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extraEnv,
    MAS_ADMIN_USERNAME: ADMIN.username,
    MAS_ADMIN_PASSWORD: ADMIN.password,
  }
  delete env.DATABASE_URL
  let schema: string | undefined
  if (databaseUrl) {
    schema = `bench_import_${randomBytes(4).toString('hex')}`
    await withPg(databaseUrl, (c) => c.query(`create schema ${schema}`))
    const u = new URL(databaseUrl)
    u.searchParams.set('options', `-c search_path=${schema}`)
    env.DATABASE_URL = u.toString()
  }
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [
      ...nodeArgsFrom('BENCH_SERVER_NODE_ARGS'),
      'bin/run.js',
      'server',
      'start',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    { env, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  const base = `http://127.0.0.1:${port}`
  const exited = new Promise((_, reject) =>
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`))),
  )
  for (;;) {
    const up = await Promise.race([
      fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
      exited,
    ])
    if (up) break
    await new Promise((r) => setTimeout(r, 200))
  }
  exited.catch(() => {})
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await gone
    }
    rmSync(dataDir, { recursive: true, force: true })
    if (schema) await withPg(databaseUrl!, (c) => c.query(`drop schema ${schema} cascade`))
  }
  return { child, base, dataDir, stop }
}

/** An s3rver bucket in a child process (bench/s3Server.ts): the environment pointing `mas` at it, and stop(). */
export async function startS3Process(): Promise<{
  child: ChildProcess
  env: Record<string, string>
  stop(): Promise<void>
}> {
  const child = spawn(process.execPath, ['dist/bench/s3Server.js'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]))
    })
    child.once('exit', (code) => reject(new Error(`the S3 server exited with ${code}`)))
  })
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await gone
  }
  return { child, env, stop }
}

/** A process's CPU time (user + system, seconds) so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

export async function json(
  base: string,
  method: string,
  path: string,
  token: string | null,
  body: unknown,
): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** The admin's token. */
export async function adminToken(base: string): Promise<string> {
  return (await json(base, 'POST', '/api-token-auth/', null, ADMIN)).token
}

/** POST a multipart form over one HTTP request, streaming it; resolves with the status. */
export function postForm(base: string, path: string, token: string, form: FormData): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          ...form.getHeaders(),
          'content-length': String(form.getLengthSync()),
          authorization: `Token ${token}`,
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          res.statusCode === 201 || res.statusCode === 200
            ? resolve(res.statusCode)
            : reject(new Error(`import: ${res.statusCode}`)),
        )
      },
    )
    req.on('error', reject)
    form.pipe(req)
  })
}

/** A file (in memory, or the path of one on disk) imported through the API as `name`; its media file's id. */
export async function uploadFile(
  s: ImportServer,
  token: string,
  library: number,
  name: string,
  bytes: Buffer | string,
): Promise<number> {
  const form = new FormData()
  if (typeof bytes === 'string')
    form.append('file', createReadStream(bytes), {
      filename: name,
      contentType: 'audio/wav',
      knownLength: statSync(bytes).size,
    })
  else form.append('file', bytes, { filename: name, contentType: 'audio/wav' })
  form.append('alias', name)
  await postForm(s.base, `/api/v0/library/${library}/mediaFiles/import/`, token, form)
  const found = await json(
    s.base,
    'GET',
    `/api/v0/mediaFile/?library=${library}&alias=${encodeURIComponent(name)}`,
    token,
    undefined,
  )
  const match = (found.results as Array<{ id: number; alias: string }>).find((m) => m.alias === name)
  if (!match) throw new Error(`${name} was not imported`)
  return match.id
}

/** Run `work` over `items`, `n` at a time. */
export async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await work(items[next++])
    }),
  )
}

/** `files` in-memory WAVs through the raw import endpoint, `concurrency` at a time; seconds taken. */
export async function rawImport(
  base: string,
  token: string,
  library: number,
  wavs: Buffer[],
  concurrency: number,
): Promise<number> {
  const importPath = `/api/v0/library/${library}/mediaFiles/import/`
  const started = process.hrtime.bigint()
  await pool(
    wavs.map((w, i) => ({ w, i })),
    concurrency,
    async ({ w, i }) => {
      const form = new FormData()
      form.append('file', w, { filename: `tone-${i}.wav`, contentType: 'audio/wav' })
      const status = await postForm(base, importPath, token, form)
      if (status !== 201) throw new Error(`file ${i}: ${status}`)
    },
  )
  return Number(process.hrtime.bigint() - started) / 1e9
}
