import { rmSync } from 'node:fs'
import { request } from 'node:http'
import { rssMiB } from './memory.js'
import { startMas, type Running } from './processes.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { multipart } from '../test/helpers/upload.js'
import { makeWav } from '../test/helpers/wav.js'
import { runBench } from './args.js'

// The figures behind README's "Reliability and security": what an outside
// attacker sees of the brute-force limit, whether answers' timing tells which
// usernames exist, what a deeply nested JSON body costs the server, and what
// bulk creates at MAS_MAX_BULK_ITEMS (and far past it) cost it and its other clients.
//
//   npm run bench:security                         a fresh server on the embedded database (or DATABASE_URL)
//   npm run bench:security -- --workers 2          the same with two server processes
//   npm run bench:security -- --only bulkBodies    one probe (bruteForce, enumeration, nestedBodies, bulkBodies)
//   npm run bench:security -- --base URL --user U --password P [--pid PID]
//                                                  any running server (PID: its process, for memory figures)
//
// Attempts come from many loopback addresses (127.0.x.y) so the timing figures
// measure password checks, not the limit.

interface Options {
  base?: string
  user: string
  password: string
  pid?: number
  workers: number
  tries: number
  nestedMiB: number
  only?: string
}

function options(argv: string[]): Options {
  const o: Options = { user: 'admin', password: 'probe-admin-pass', workers: 1, tries: 100, nestedMiB: 30 }
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1]
    switch (argv[i]) {
      case '--base':
        o.base = v
        i++
        break
      case '--user':
        o.user = v
        i++
        break
      case '--password':
        o.password = v
        i++
        break
      case '--pid':
        o.pid = Number(v)
        i++
        break
      case '--workers':
        o.workers = Number(v)
        i++
        break
      case '--tries':
        o.tries = Number(v)
        i++
        break
      case '--nested-mib':
        o.nestedMiB = Number(v)
        i++
        break
      case '--only':
        o.only = v
        i++
        break
      default:
        throw new Error(`unknown option ${argv[i]}`)
    }
  }
  return o
}

interface Answer {
  status: number
  ms: number
  retryAfter?: string
}

function send(
  base: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string; from?: string },
): Promise<Answer> {
  const url = new URL(opts.path, base)
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? 'GET',
        headers: {
          ...opts.headers,
          ...(opts.body !== undefined ? { 'content-length': Buffer.byteLength(opts.body) } : {}),
        },
        localAddress: opts.from,
        agent: false,
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: Number(process.hrtime.bigint() - started) / 1e6,
            retryAfter: res.headers['retry-after'] as string | undefined,
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` })
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const addressOf = (n: number) => `127.0.${100 + Math.floor(n / 250)}.${1 + (n % 250)}`

async function bruteForce(base: string, o: Options): Promise<void> {
  const from = '127.0.9.9'
  const codes: number[] = []
  for (let i = 0; i < 60; i++)
    codes.push((await send(base, { path: '/api/v0/library/', headers: basic(o.user, `wrong${i}`), from })).status)
  const right = await send(base, { path: '/api/v0/library/', headers: basic(o.user, o.password), from })
  const elsewhere = await send(base, {
    path: '/api/v0/library/',
    headers: basic(o.user, o.password),
    from: '127.0.9.10',
  })
  const firstLimited = codes.indexOf(429)
  console.log(
    `brute force, 60 wrong Basic passwords from one address: ${codes.filter((c) => c === 401).length} x 401, ` +
      `${codes.filter((c) => c === 429).length} x 429 (first at attempt ${firstLimited + 1}); then the right password: ` +
      `${right.status} (Retry-After ${right.retryAfter ?? '-'}), from another address: ${elsewhere.status}`,
  )
}

async function enumeration(base: string, o: Options): Promise<void> {
  const unknown: number[] = []
  const wrong: number[] = []
  const tokenUnknown: number[] = []
  const tokenWrong: number[] = []
  for (let i = 0; i < o.tries; i++) {
    unknown.push(
      (await send(base, { path: '/api/v0/library/', headers: basic(`nobody${i}`, 'guess'), from: addressOf(4 * i) }))
        .ms,
    )
    wrong.push(
      (await send(base, { path: '/api/v0/library/', headers: basic(o.user, `guess${i}`), from: addressOf(4 * i + 1) }))
        .ms,
    )
    const json = { 'content-type': 'application/json' }
    tokenUnknown.push(
      (
        await send(base, {
          method: 'POST',
          path: '/api-token-auth/',
          headers: json,
          body: JSON.stringify({ username: `nobody${i}`, password: 'guess' }),
          from: addressOf(4 * i + 2),
        })
      ).ms,
    )
    tokenWrong.push(
      (
        await send(base, {
          method: 'POST',
          path: '/api-token-auth/',
          headers: json,
          body: JSON.stringify({ username: o.user, password: `guess${i}` }),
          from: addressOf(4 * i + 3),
        })
      ).ms,
    )
  }
  const f = (x: number) => x.toFixed(1)
  console.log(
    `timing over ${o.tries} tries each, median ms: Basic unknown user ${f(median(unknown))}, wrong password ${f(median(wrong))}; ` +
      `token login unknown user ${f(median(tokenUnknown))}, wrong password ${f(median(tokenWrong))}`,
  )
}

async function nestedBodies(base: string, o: Options, pid: number | undefined): Promise<void> {
  const depth = Math.floor((o.nestedMiB * 1024 * 1024) / 2)
  const body = Buffer.from('['.repeat(depth) + ']'.repeat(depth))
  let peak = pid ? rssMiB(pid) : 0
  const before = peak
  const sampler = pid
    ? setInterval(() => {
        peak = Math.max(peak, rssMiB(pid))
      }, 50)
    : undefined
  const probes: number[] = []
  let attacking = true
  const prober = (async () => {
    while (attacking) probes.push((await send(base, { path: '/healthz' })).ms)
  })()
  const started = Date.now()
  const answers = await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      send(base, {
        method: 'POST',
        path: '/api-token-auth/',
        headers: { 'content-type': 'application/json' },
        body,
        from: addressOf(900 + i),
      }).catch((e: Error) => ({ status: 0, ms: Date.now() - started, error: e.message })),
    ),
  )
  attacking = false
  await prober
  if (sampler) clearInterval(sampler)
  const after = pid ? rssMiB(pid) : 0
  console.log(
    `4 concurrent ${o.nestedMiB} MB nested JSON bodies to /api-token-auth/: answers ${answers.map((a) => a.status).join(', ')} ` +
      `in ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms; other clients meanwhile: ${probes.length} answers, ` +
      `slowest ${Math.max(0, ...probes).toFixed(0)} ms` +
      (pid
        ? `; server RSS ${before.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB, ${after.toFixed(0)} MiB after`
        : ''),
  )
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0
}

/** Three bulk creates of MAS_MAX_BULK_ITEMS (10,000) tags at once, and one array far past the limit, while
 * another client lists libraries: the server's peak memory and the other client's latency. */
async function bulkBodies(base: string, o: Options, pid: number | undefined): Promise<void> {
  const json = { 'content-type': 'application/json' }
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(new URL(path, base), {
      method,
      headers: { ...json, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return res.json() as Promise<any>
  }
  const token = (await call('POST', '/api-token-auth/', { username: o.user, password: o.password })).token as string
  const auth = { authorization: `Token ${token}` }
  const library = (await call('POST', '/api/v0/library/', { name: `bulk probe ${Date.now()}` }, auth)).id
  const upload = multipart({
    file: {
      data: makeWav({ seconds: 60, frequency: 440, sampleRate: 8000 }),
      filename: 'probe.wav',
      contentType: 'audio/wav',
    },
  })
  const media = (await (
    await fetch(new URL(`/api/v0/library/${library}/mediaFiles/import/`, base), {
      method: 'POST',
      headers: { ...upload.headers, ...auth },
      body: new Uint8Array(upload.payload),
    })
  ).json()) as { id: number }
  const tagSet = (await call('POST', '/api/v0/tagSet/', { name: 'bulk probe', library }, auth)).id
  const tagClass = (
    await call('POST', '/api/v0/tagClass/', { className: 'probe', displayName: 'probe', library }, auth)
  ).id
  const tags = (n: number) =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({
        tagSet,
        tagClass,
        mediaFile: media.id,
        startTime: (i % 5000) / 100,
        endTime: (i % 5000) / 100 + 0.5,
        minFrequency: 100,
        maxFrequency: 2000,
      })),
    )
  const within = tags(10_000)
  const beyond = tags(250_000)
  let peak = pid ? rssMiB(pid) : 0
  const before = peak
  const sampler = pid
    ? setInterval(() => {
        peak = Math.max(peak, rssMiB(pid))
      }, 50)
    : undefined
  const probes: number[] = []
  let loading = true
  const prober = (async () => {
    while (loading) probes.push((await send(base, { path: '/api/v0/library/', headers: auth })).ms)
  })()
  const started = Date.now()
  const answers = await Promise.all(
    [within, within, within, beyond].map((body) =>
      send(base, {
        method: 'POST',
        path: '/api/v0/tag/',
        headers: { ...json, ...auth },
        body,
      }).catch((e: Error) => ({ status: 0, ms: Date.now() - started, error: e.message })),
    ),
  )
  loading = false
  await prober
  if (sampler) clearInterval(sampler)
  console.log(
    `3 concurrent 10,000-tag bulk creates (${(within.length / 1024 / 1024).toFixed(1)} MB each) and one of 250,000 ` +
      `(${(beyond.length / 1024 / 1024).toFixed(1)} MB): answers ${answers.map((a) => `${a.status} in ${a.ms.toFixed(0)} ms`).join(', ')}; ` +
      `other clients meanwhile: ${probes.length} lists, p99 ${percentile(probes, 0.99).toFixed(0)} ms, slowest ${Math.max(0, ...probes).toFixed(0)} ms` +
      (pid ? `; server RSS ${before.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB` : ''),
  )
}

async function main() {
  const o = options(process.argv.slice(2))
  let running: Running | undefined
  let dataDir: string | undefined
  let base = o.base
  let pid = o.pid
  if (!base) {
    dataDir = tempDir('mas-probe-')
    process.env.MAS_ADMIN_USERNAME = o.user
    process.env.MAS_ADMIN_PASSWORD = o.password
    running = await startMas({ dataDir, databaseUrl: process.env.DATABASE_URL || undefined, workers: o.workers })
    base = running.base
    pid = running.child.pid
  }
  try {
    console.log(
      `probing ${base}${o.workers > 1 ? ` (${o.workers} server processes)` : ''}, ${new Date().toISOString()}`,
    )
    const probes = { bruteForce, enumeration, nestedBodies, bulkBodies }
    for (const [name, probe] of Object.entries(probes)) if (!o.only || o.only === name) await probe(base, o, pid)
  } finally {
    await running?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  }
}

await runBench(main)
