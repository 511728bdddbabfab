import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import pretty from 'pino-pretty'

// The server's log, in one of two forms (docs/architecture.md, "The server's log"):
// - json: fastify's own pino lines, two per request ("incoming request", "request completed"), for a
//   log collector or a file;
// - pretty: for a person at a terminal, one readable line per request (time, method, path, status,
//   milliseconds), coloured when the output is a terminal.
// Request bodies are never logged in either form, and the secrets among headers and fields are redacted.
// A refused request's line (4xx) carries the reason its answer gave (`refusalReason`); a health check answered
// 200 is counted, not logged (docs/decisions.md §28).

export type LogFormat = 'pretty' | 'json'
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/** What the app's logger is given: fastify's logger options and the controller of its request lines. */
export interface ServerLog {
  logger: FastifyServerOptions['logger']
  logController: RequestLines
}

/** The format when none is asked for: readable on a terminal, JSON otherwise. */
export function defaultLogFormat(out: { isTTY?: boolean }): LogFormat {
  return out.isTTY ? 'pretty' : 'json'
}

type Out = NodeJS.WritableStream & { isTTY?: boolean }

export function serverLog(format: LogFormat, level: LogLevel, out: Out = process.stdout): ServerLog {
  // buildApp adds the redaction of its REDACT to either. The JSON lines go to `out` itself, written as they come
  // (Node writes a file or pipe on stdout synchronously): pino's own asynchronous stdout could still be writing a
  // request's line when the process writes its last line and exits, which then came first
  if (format === 'json') return { logger: { level, stream: out }, logController: new JsonRequestLines() }
  return { logger: { level, stream: readableLog(out) }, logController: new OneLinePerRequest() }
}

/** A writer of one log line (`msg` at info level) in `format`, for a process without an app (a cluster's primary). */
export function lineWriter(format: LogFormat, out: Out = process.stdout): (msg: string) => void {
  const to = format === 'pretty' ? readableLog(out) : out
  return (msg) => {
    to.write(`${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, msg })}\n`)
  }
}

/** pino's JSON lines turned into readable ones on `out`. */
function readableLog(out: Out): NodeJS.WritableStream {
  return pretty({
    destination: out,
    sync: true,
    colorize: Boolean(out.isTTY) && !process.env.NO_COLOR,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId',
    hideObject: true, // fields other than an error's: the request line carries what it needs in its message
    messageFormat: (log, messageKey, _level, { colors }) => {
      const r = log as Partial<RequestFields>
      if (typeof r.method !== 'string' || typeof r.statusCode !== 'number') return String(log[messageKey] ?? '')
      const status = r.statusCode >= 500 ? colors.red : r.statusCode >= 400 ? colors.yellow : colors.green
      const reason = typeof r.reason === 'string' ? ` — ${r.reason}` : ''
      return `${colors.bold(r.method)} ${r.url} ${status(String(r.statusCode))} ${colors.gray(`${r.ms} ms`)}${reason}`
    },
  })
}

interface RequestFields {
  method: string
  url: string
  statusCode: number
  ms: number
  client: string
  reason?: string
}

/** The request lines of either form: a refusal's reason added, health checks answered 200 counted instead of logged. */
export abstract class RequestLines extends LogController {
  /** health checks answered 200 and not logged */
  healthChecks = 0

  /** Counts a health check answered 200: such a request has no line of its own. */
  protected counted(req: FastifyRequest, reply: FastifyReply): boolean {
    if (!req.routeOptions.config?.healthCheck || reply.statusCode !== 200) return false
    this.healthChecks++
    return true
  }

  protected static reason(req: FastifyRequest): { reason?: string } {
    return req.refusal ? { reason: req.refusal } : {}
  }
}

/** fastify's own JSON lines ("incoming request", "request completed"), the latter with a refusal's `reason`. */
class JsonRequestLines extends RequestLines {
  override incomingRequest(req: FastifyRequest): void {
    if (this.isLogDisabled(req) || req.routeOptions.config?.healthCheck) return
    req.log.info({ req }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(req) || this.counted(req, reply)) return
    const fields = { res: reply, responseTime: reply.elapsedTime, ...RequestLines.reason(req) }
    if (error) reply.log.error({ ...fields, err: error }, 'request errored')
    else reply.log.info(fields, 'request completed')
  }
}

/** fastify's request logging with one line per answered request (method, path with its query, status, time
 * taken, a refusal's reason) instead of "incoming request" and "request completed". */
class OneLinePerRequest extends RequestLines {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(req) || this.counted(req, reply)) return
    // `client`: the caller's address as MAS_TRUST_PROXY lets it be read (the rightmost untrusted hop)
    const fields: RequestFields = {
      method: req.method,
      url: req.url,
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      client: req.ip,
      ...RequestLines.reason(req),
    }
    const line = `${fields.method} ${fields.url} ${fields.statusCode} ${fields.ms} ms${fields.reason ? ` — ${fields.reason}` : ''}`
    if (error) reply.log.error({ ...fields, err: error }, line)
    else reply.log.info(fields, line)
  }
}
