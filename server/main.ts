import cluster from 'node:cluster'
import { ClusterError } from './db/clusterHost.js'
import type { ExecutionProvider } from './analysis/models/onnx.js'
import { ConfigError, configFromEnv, type AppConfig } from './config.js'
import { boundServerHeap } from './heap.js'
import type { LogFormat, LogLevel } from './log.js'

// The process root: what `mas server start` and `mas worker start` run once their flags are read. Listening,
// the job worker, node:cluster's server processes, signals and shutdown are here, each written once; the
// commands only turn flags into options (and load this module only when they run, so the rest of the CLI
// starts quickly). The app and the job worker are imported once the server's heap is bounded
// (docs/decisions.md §17), before anything large is loaded.

/** What every process of this module runs (preparing the database, the job worker), loaded when it starts. */
async function jobModules() {
  const [{ prepare }, { Worker }, { serverLog, lineWriter, defaultLogFormat }, { allCores, coresButOne }] =
    await Promise.all([
      import('./startup.js'),
      import('./jobs/worker.js'),
      import('./log.js'),
      import('./analysis/threads.js'),
    ])
  return { prepare, Worker, serverLog, lineWriter, defaultLogFormat, allCores, coresButOne }
}

export interface ServerOptions {
  host: string
  port: number
  /** where the embedded database and media live (otherwise MAS_DATA_DIR, or ./.mas) */
  dataDir?: string
  /** run queued jobs in this process (in the primary, with `workers` above 1) */
  worker: boolean
  /** HTTP server processes sharing the port (node:cluster) */
  workers: number
  logLevel: LogLevel
  /** pretty or JSON lines (default: pretty on a terminal, JSON otherwise) */
  logFormat?: LogFormat
}

export interface WorkerOptions {
  dataDir?: string
  /** jobs run at the same time (default: `threads`) */
  concurrency?: number
  /** threads audio is analysed on (default: every core) */
  threads?: number
  /** where models run (default: cpu) */
  executionProvider?: ExecutionProvider
}

/** Is `e` a refusal to start that is told in one line as it is (a data directory, the configuration)? */
export const isStartRefusal = (e: unknown): e is Error => e instanceof ClusterError || e instanceof ConfigError

/** Runs `stop` once, on the first SIGTERM or SIGINT. */
function onStopSignal(stop: (signal: string) => void): void {
  let stopping = false
  const once = (signal: string) => {
    if (!stopping) {
      stopping = true
      stop(signal)
    }
  }
  process.on('SIGTERM', () => once('SIGTERM'))
  process.on('SIGINT', () => once('SIGINT'))
}

const configOf = (dataDir: string | undefined): AppConfig => configFromEnv(process.env, dataDir ? { dataDir } : {})

/** `mas server start`: one server process, or with `workers` above 1 the primary of that many. */
export async function startServer(o: ServerOptions): Promise<void> {
  boundServerHeap()
  const config = configOf(o.dataDir)
  if (o.workers > 1 && cluster.isPrimary) return runPrimary(o, config)
  const [{ buildApp }, { openDatabase }, { prepare, Worker, serverLog, coresButOne, defaultLogFormat }] =
    await Promise.all([import('./app.js'), import('./db/database.js'), jobModules()])
  const logFormat = o.logFormat ?? defaultLogFormat(process.stdout)
  const clustered = !cluster.isPrimary
  // the primary of a cluster has migrated and created the first admin already
  const prepared = clustered
    ? {
        database: await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir }),
        adminCreated: undefined,
        staleUploadsRemoved: 0,
        uncommittedRemoved: 0,
      }
    : await prepare(config)
  const { database } = prepared
  const log = serverLog(logFormat, o.logLevel)
  const app = await buildApp({ database, config, ownsDatabase: true, ...log })
  if (config.trustProxy === true) {
    app.log.warn(
      "MAS_TRUST_PROXY=true believes X-Forwarded-For from any peer, so a client can choose the address its login attempts count against: set it to the proxies' addresses (e.g. MAS_TRUST_PROXY=10.0.0.5) or their number (MAS_TRUST_PROXY=1)",
    )
  }
  if (prepared.adminCreated) app.log.info(`created the first admin user "${prepared.adminCreated}"`)
  if (prepared.staleUploadsRemoved)
    app.log.info(`removed ${prepared.staleUploadsRemoved} unfinished upload(s) left by an earlier process`)
  if (prepared.uncommittedRemoved)
    app.log.info(`removed ${prepared.uncommittedRemoved} stored file(s) of imports that never committed`)

  const worker =
    o.worker && !clustered
      ? new Worker({
          db: database.db,
          config,
          storage: app.storage,
          threads: coresButOne(),
          log: (m) => app.log.info(m),
        }).start()
      : undefined
  let address = ''
  onStopSignal((signal) => {
    const inFlight = app.inFlight.requests
    app.log.info(
      { signal },
      inFlight ? `shutting down: finishing ${count(inFlight, 'request')} in flight` : 'shutting down',
    )
    Promise.resolve(worker?.stop())
      .then(async (givenBack) => {
        await app.close()
        const what = `${clustered ? `server process ${cluster.worker?.id}` : 'server'} on ${address}${worker ? ' and its job worker' : ''}`
        app.log.info(
          stoppedLine(what, {
            givenBack,
            inFlight,
            unfinished: app.inFlight.requests,
            healthChecks: log.logController.healthChecks,
          }),
        )
      })
      .then(
        () => process.exit(0),
        (err) => {
          app.log.error(err)
          process.exit(1)
        },
      )
  })

  address = await app.listen({ host: o.host, port: o.port })
  app.log.info(
    `mas server listening on ${address} (${database.kind === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'})` +
      (clustered ? `, worker process ${cluster.worker?.id}` : ''),
  )
  if (!clustered || cluster.worker?.id === 1)
    process.stderr.write(startupSummary(address, config, database.kind, o.worker))
}

/** The primary of `workers` server processes: migrate, create the first admin, run the job worker if asked, and
 * keep the server processes running (each runs the same command again as a cluster worker; they share the port). */
async function runPrimary(o: ServerOptions, config: AppConfig): Promise<void> {
  const { prepare, Worker, lineWriter, coresButOne, defaultLogFormat } = await jobModules()
  // the primary stays attached to the embedded PostgreSQL until its server processes have exited
  const { database } = await prepare(config, { poolSize: 2 })
  const log = lineWriter(o.logFormat ?? defaultLogFormat(process.stdout))
  const jobs = o.worker ? new Worker({ db: database.db, config, threads: coresButOne(), log }).start() : undefined

  let closing = false
  cluster.on('exit', (w, code, signal) => {
    if (closing) return
    log(`server process ${w.process.pid} exited (${signal ?? code}); starting another`)
    cluster.fork()
  })
  for (let i = 0; i < o.workers; i++) cluster.fork()
  onStopSignal(() => {
    closing = true
    log('shutting down: server processes finish their requests in flight')
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM')
    const done = () => Object.keys(cluster.workers ?? {}).length === 0
    const wait = new Promise<void>((resolve) => {
      if (done()) resolve()
      cluster.on('exit', () => {
        if (done()) resolve()
      })
    })
    Promise.all([wait, jobs?.stop()])
      .then(async ([, givenBack]) => {
        await database.close()
        log(
          stoppedLine(`${count(o.workers, 'server process', 'server processes')}${jobs ? ' and the job worker' : ''}`, {
            givenBack,
          }),
        )
      })
      .then(
        () => process.exit(0),
        () => process.exit(1),
      )
  })
}

/** `mas worker start`: runs queued jobs until stopped; jobs in progress go back to the queue. */
export async function startWorker(o: WorkerOptions): Promise<void> {
  const { prepare, Worker, allCores } = await jobModules()
  const threads = o.threads ?? allCores()
  const concurrency = o.concurrency ?? threads
  const config = configOf(o.dataDir)
  const executionProvider = o.executionProvider ?? 'cpu'
  if (executionProvider !== 'cpu') await checkExecutionProvider(executionProvider)
  const { database } = await prepare(config, { poolSize: concurrency + 2, bootstrap: false })
  const worker = new Worker({
    db: database.db,
    config,
    concurrency,
    threads,
    executionProvider,
    log: (m) => process.stderr.write(`${new Date().toISOString()} ${m}\n`),
  }).start()
  process.stderr.write(
    `mas worker ${worker.id} running ${concurrency} job(s) at a time on ${threads} analysis thread(s)${executionProvider === 'cpu' ? '' : `, models on ${executionProvider}`} (${database.kind === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'})\n`,
  )
  await new Promise<void>((resolve) =>
    onStopSignal(() => {
      process.stderr.write('stopping: jobs in progress go back to the queue\n')
      worker
        .stop()
        .then(async (givenBack) => {
          await database.close()
          process.stderr.write(`${stoppedLine(`mas worker ${worker.id}`, { givenBack })}\n`)
        })
        .then(resolve, resolve)
    }),
  )
}

/** What ended, in one line: `stopped: server on http://…:8000 and its job worker (job 12 back in the queue);
 * 3 requests in flight finished; 240 health checks answered` (the health checks the log did not show, server/log.ts). */
export function stoppedLine(
  what: string,
  o: { givenBack?: number[]; inFlight?: number; unfinished?: number; healthChecks?: number },
): string {
  const jobs = o.givenBack?.length
    ? ` (${o.givenBack.length === 1 ? 'job' : 'jobs'} ${o.givenBack.join(', ')} back in the queue)`
    : ''
  const inFlight = o.inFlight
    ? `; ${o.unfinished ? `${o.inFlight - o.unfinished} of ${count(o.inFlight, 'request')}` : count(o.inFlight, 'request')} in flight finished`
    : ''
  const healthChecks = o.healthChecks ? `; ${count(o.healthChecks, 'health check')} answered` : ''
  return `stopped: ${what}${jobs}${inFlight}${healthChecks}`
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** What a person starting the server needs to know, in plain words. */
function startupSummary(address: string, config: AppConfig, kind: 'embedded' | 'postgres', worker: boolean): string {
  const database =
    kind === 'embedded'
      ? `embedded PostgreSQL in ${config.dataDir}/postgres (mas db url --data-dir ${config.dataDir} prints how to connect)`
      : `PostgreSQL at ${withoutPassword(config.databaseUrl!)}`
  return [
    `mas is serving on ${address}`,
    `  data directory: ${config.dataDir}`,
    `  database:       ${database}`,
    `  jobs:           ${worker ? 'run in this process, one at a time' : 'left to mas worker start (--no-worker)'}`,
    `  log in with:    mas login --server ${address}`,
    '  stop with Ctrl-C',
    '',
  ].join('\n')
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = ''
    return u.toString()
  } catch {
    return 'DATABASE_URL'
  }
}

/** Refuse to start a worker whose models could not run where it was told: the bundled speech model is loaded there
 * once, so that a machine without the GPU's libraries says so at start, not in every model job's failure. */
async function checkExecutionProvider(provider: ExecutionProvider): Promise<void> {
  const { openSpeechModel } = await import('./analysis/models/speech.js')
  try {
    await (await openSpeechModel(provider)).release()
  } catch (e) {
    throw new ConfigError(
      `--execution-provider ${provider}: ${(e as Error).message}; a worker running models on ${provider} needs the GPU, its CUDA and cuDNN libraries and onnxruntime-node's CUDA files (README, "Workers on other machines")`,
    )
  }
}
