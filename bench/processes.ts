import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

// The processes a benchmark drives: `mas server start` on the seeded database,
// and the ceiling (a bare Fastify serving recorded answers), each on its own
// free port, stopped by their own ids.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface Running {
  child: ChildProcess
  base: string
  stop(): Promise<void>
}

/** Node options for a benchmarked process from an environment variable, e.g.
 * BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=prof' to profile it. */
export function nodeArgsFrom(variable: string): string[] {
  return (process.env[variable] ?? '').split(' ').filter(Boolean)
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

async function waitUntilUp(base: string, child: ChildProcess, path: string): Promise<void> {
  let exited: number | null = null
  child.once('exit', (code) => {
    exited = code ?? -1
  })
  for (let i = 0; i < 600; i++) {
    if (exited !== null) throw new Error(`${base}: the process exited with ${exited} before it answered`)
    try {
      const res = await fetch(base + path)
      if (res.ok) return
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${base}: no answer within 60 s`)
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
}

export interface ServerOptions {
  dataDir?: string
  databaseUrl?: string
  workers?: number
  /** write a V8 CPU profile of the server process into this folder */
  cpuProfDir?: string
  logLevel?: string
}

/** `mas server start` on the seeded database; DATABASE_URL, when given, wins over the data dir. */
export async function startMas(opts: ServerOptions): Promise<Running> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.DATABASE_URL
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl
  const node = opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : []
  const args = [
    ...node,
    'bin/run.js',
    'server',
    'start',
    '--port',
    String(port),
    '--log-level',
    opts.logLevel ?? 'warn',
  ]
  if (opts.dataDir) args.push('--data-dir', opts.dataDir)
  if (opts.workers && opts.workers > 1) args.push('--workers', String(opts.workers))
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  await waitUntilUp(base, child, '/healthz')
  return { child, base, stop: stopper(child) }
}

/** The ceiling: a bare Fastify process answering each recorded path with its recorded JSON, no database. */
export async function startCeiling(answersFile: string): Promise<Running> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./ceiling.js', import.meta.url)), answersFile, String(port)],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  const base = `http://127.0.0.1:${port}`
  await waitUntilUp(base, child, '/up')
  return { child, base, stop: stopper(child) }
}
