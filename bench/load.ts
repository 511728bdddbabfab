import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'

// Load generation for the API benchmarks. wrk (Debian package `wrk`) runs in
// its own process, written in C, so on a 2-core machine it takes less CPU from
// the server than autocannon, which runs in the benchmark's own Node process.
// autocannon remains for machines without wrk.

export interface LoadRequest {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string
  connections: number
  /** seconds */
  duration: number
}

export interface Measure {
  rps: number
  /** latency in ms */
  p50: number
  p99: number
  mean: number
  /** connection errors and timeouts */
  errors: number
  non2xx: number
  requests: number
  seconds: number
}

export type Driver = 'wrk' | 'autocannon'

export function wrkInstalled(): boolean {
  try {
    execFileSync('wrk', ['-v'], { stdio: 'ignore' })
    return true
  } catch (e) {
    // wrk -v prints its version and exits 1
    return (e as { status?: number }).status === 1
  }
}

export async function load(driver: Driver, req: LoadRequest): Promise<Measure> {
  return driver === 'wrk' ? withWrk(req) : withAutocannon(req)
}

async function withAutocannon(req: LoadRequest): Promise<Measure> {
  const r = await autocannon({
    url: req.url,
    method: req.method,
    connections: req.connections,
    duration: req.duration,
    headers: req.headers,
    body: req.body,
    timeout: 30,
  })
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.mean,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    requests: r.requests.total,
    seconds: r.duration,
  }
}

/** A Lua script setting the method, headers and body of every request. */
function wrkScript(req: LoadRequest): string {
  const lines = [`wrk.method = ${JSON.stringify(req.method)}`]
  for (const [k, v] of Object.entries(req.headers))
    lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
  if (req.body !== undefined) lines.push(`wrk.body = ${luaLongString(req.body)}`)
  return lines.join('\n') + '\n'
}

/** A Lua long bracket string holding `s` verbatim: a level of `=` whose closing bracket occurs neither in
 * `s` nor where `s` ends in `]` and meets it. */
function luaLongString(s: string): string {
  let eq = ''
  while (`${s}]`.includes(`]${eq}]`)) eq += '='
  return `[${eq}[${s}]${eq}]`
}

async function withWrk(req: LoadRequest): Promise<Measure> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-wrk-'))
  try {
    const script = join(dir, 'request.lua')
    writeFileSync(script, wrkScript(req))
    const threads = Math.min(2, req.connections)
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        'wrk',
        [
          `-t${threads}`,
          `-c${req.connections}`,
          `-d${req.duration}s`,
          '--timeout',
          '30s',
          '--latency',
          '-s',
          script,
          req.url,
        ],
        { maxBuffer: 1 << 20 },
        (err, stdout, stderr) => (err ? reject(new Error(`wrk: ${stderr || err.message}`)) : resolve(stdout)),
      )
    })
    return parseWrk(out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** wrk's latency value (812.00us, 12.5ms, 1.02s, 1.5m) in ms. */
function ms(value: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value ?? '')
  if (!m) return NaN
  const n = Number(m[1])
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000
}

export function parseWrk(out: string): Measure {
  const field = (re: RegExp) => re.exec(out)?.[1]
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(out)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  return {
    rps: Number(field(/Requests\/sec:\s+([\d.]+)/)),
    p50: ms(field(/^\s+50%\s+(\S+)/m)),
    p99: ms(field(/^\s+99%\s+(\S+)/m)),
    mean: ms(field(/^\s+Latency\s+(\S+)/m)),
    errors: socket ? socket.slice(1).reduce((s, n) => s + Number(n), 0) : 0,
    non2xx: Number(field(/Non-2xx or 3xx responses: (\d+)/) ?? 0),
    requests: total ? Number(total[1]) : 0,
    seconds: total ? ms(`${total[2]}${total[3]}`) / 1000 : 0,
  }
}
