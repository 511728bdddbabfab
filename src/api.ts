import { setTimeout as sleep } from 'node:timers/promises'
import type { Readable } from 'node:stream'
import type FormData from 'form-data'
import { exchange, exchangeText, httpAgent, httpsAgent } from './http.js'
import { filterCheck } from './listFilters.js'
import type { Query } from './query.js'
import { NAMES_VERSION_HEADER, type NameMemory } from './nameMemory.js'
import type { ListPath, ListRecord, RecordAt, RecordPath } from './apiPaths.js'

// The API client: node's HTTP client underneath (src/http.ts), one place for URLs, auth, JSON (also
// when the original service labels it text/html), retries and pagination. Its answers are typed by path
// (src/apiPaths.ts): a record's path answers that record; any other path, the type the call names (unknown
// unless it names one).

export type Method = 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export const API_PATH = '/api/v0/'

/** The server answered with an error status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly method: string,
    readonly url: string,
  ) {
    super((status === 404 && recordNotFound(url, body)) || describeError(status, body))
    this.name = 'ApiError'
  }
}

/** The server could not be reached at all (after retries). */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message)
    this.name = 'ConnectionError'
  }
}

const CONNECT_TIMEOUT_MS = 15_000
/** how long an answer may take (`--timeout`, MAS_TIMEOUT): a server that accepts and never answers is given up on
 * like one that cannot be reached */
export const DEFAULT_TIMEOUT_SECONDS = 60
/** an upload's answer waits this much longer per MiB sent (the server hashes, reads and stores the file first) */
const UPLOAD_MS_PER_MIB = 1000
/** the largest page a list answers (the API's max page size): the size every list is read in */
export const MAX_PAGE_SIZE = 1000

const RETRY_STATUS = new Set([502, 503, 504])
const RETRY_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
])

export interface Page<T> {
  count: number
  next: string | null
  previous: string | null
  results: T[]
}

export interface ClientOptions {
  server: string
  token?: string
  /** attempts after the first for retryable failures */
  retries?: number
  /** first backoff delay in ms, doubled each attempt */
  backoffMs?: number
  userAgent?: string
  /** ms an answer may take to begin, and the longest silence within it (uploads: longer, by their size) */
  timeoutMs?: number
}

interface RequestOptions {
  query?: Query
  json?: unknown
  /** a JSON body already serialized */
  jsonText?: string
  /** called with the status as soon as the answer's head arrives, before its body is read */
  onStatus?: (status: number) => void
  form?: Record<string, string>
  /** may this request be sent again after a connection error or 502/503/504? */
  retry?: boolean
  /** headers beside the client's own */
  headers?: Record<string, string>
}

export interface Answer<T> {
  status: number
  data: T
  headers: Record<string, string | string[] | undefined>
}

export function normalizeServer(server: string): string {
  let s = server.trim()
  if (!/^https?:\/\//i.test(s)) s = `http://${s}`
  s = s.replace(/\/+$/, '')
  if (s.endsWith('/api/v0')) s = s.slice(0, -'/api/v0'.length)
  return s
}

export class ApiClient {
  readonly server: string
  readonly base: string
  private readonly token?: string
  private readonly retries: number
  private readonly backoffMs: number
  private readonly userAgent: string
  private readonly timeoutMs: number
  /** names remembered between commands (src/nameMemory.ts): every request then carries the names version */
  memory?: NameMemory

  constructor(opts: ClientOptions) {
    this.server = normalizeServer(opts.server)
    this.base = this.server + API_PATH
    this.token = opts.token
    this.retries = opts.retries ?? numberFromEnv('MAS_RETRIES', 4)
    this.backoffMs = opts.backoffMs ?? numberFromEnv('MAS_RETRY_DELAY_MS', 250)
    this.userAgent = opts.userAgent ?? 'mas-cli'
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_SECONDS * 1000
  }

  /** An absolute URL: paths are relative to the API base; absolute URLs pass through. */
  url(path: string, query?: Query): string {
    const u = new URL(path, this.base)
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v))
    return u.toString()
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json',
      'user-agent': this.userAgent,
      ...(this.token ? { authorization: `Token ${this.token}` } : {}),
      ...(this.memory ? { [NAMES_VERSION_HEADER]: this.memory.header } : {}),
      ...extra,
    }
  }

  async request<T = unknown>(method: Method, path: string, opts: RequestOptions = {}): Promise<Answer<T>> {
    const url = this.url(path, opts.query)
    const retry = opts.retry ?? ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(method)
    const headers = this.headers({
      ...(opts.json !== undefined || opts.jsonText !== undefined
        ? { 'content-type': 'application/json' }
        : opts.form !== undefined
          ? { 'content-type': 'application/x-www-form-urlencoded' }
          : {}),
      ...opts.headers,
    })
    const body =
      opts.jsonText ??
      (opts.json !== undefined
        ? JSON.stringify(opts.json)
        : opts.form !== undefined
          ? new URLSearchParams(opts.form).toString()
          : undefined)
    return this.withRetry(method, url, retry, async () => {
      const res = await exchangeText({
        method,
        url,
        headers,
        body,
        onStatus: opts.onStatus,
        // the answer's head within the timeout once the request is sent; no silence longer within it
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        timeoutMs: this.timeoutMs,
      })
      this.memory?.observe(res.headers[NAMES_VERSION_HEADER])
      return { status: res.status, data: parseBody(res.text) as T, headers: res.headers }
    })
  }

  /** Multipart upload; `form` builds a fresh body for each attempt since a stream cannot be re-read.
   * Sent by form-data's own submit (node's http client, connections kept alive): got costs twice its
   * CPU a request, which on a bulk import of small files is taken from the server beside it. */
  upload<P extends ListPath>(
    path: P,
    form: () => FormData | Promise<FormData>,
    opts?: { retry?: boolean },
  ): Promise<Answer<ListRecord<P>>>
  upload<T = unknown>(
    path: string,
    form: () => FormData | Promise<FormData>,
    opts?: { retry?: boolean },
  ): Promise<Answer<T>>
  async upload<T>(
    path: string,
    form: () => FormData | Promise<FormData>,
    opts: { retry?: boolean } = {},
  ): Promise<Answer<T>> {
    const url = this.url(path)
    const target = new URL(url)
    const https = target.protocol === 'https:'
    return this.withRetry('POST', url, opts.retry ?? false, async () => {
      const body = await form()
      return new Promise<Answer<T>>((resolve, reject) => {
        const request = body.submit(
          {
            protocol: https ? 'https:' : 'http:',
            host: target.hostname,
            port: target.port || (https ? 443 : 80),
            path: target.pathname + target.search,
            method: 'POST',
            headers: this.headers(),
            agent: https ? httpsAgent : httpAgent,
          },
          (err, res) => {
            if (err) return reject(err)
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => {
              text += chunk
            })
            res.on('error', reject)
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, data: parseBody(text) as T, headers: res.headers }),
            )
          },
        )
        request.on('error', reject)
        const connecting = setTimeout(() => {
          if (!request.socket || request.socket.connecting) request.destroy(timedOut('connect timed out'))
        }, CONNECT_TIMEOUT_MS)
        request.once('close', () => clearTimeout(connecting))
        // a server that stops reading or never answers: no byte either way for this long ends the attempt
        const silentMs = this.timeoutMs + Math.ceil(lengthOf(body) / 1024 ** 2) * UPLOAD_MS_PER_MIB
        request.setTimeout(silentMs, () =>
          request.destroy(timedOut(`no answer within ${Math.round(silentMs / 1000)} s`)),
        )
      })
    })
  }

  /** A response body as a stream (file downloads); the caller's URL may be absolute. `waitAtLeastMs`: for an answer
   * the server takes long to make (a whole recording's picture), the least time it may take to begin. */
  async download(
    url: string,
    opts: { waitAtLeastMs?: number; query?: Query } = {},
  ): Promise<Readable & { response?: { headers: Record<string, string | string[] | undefined> } }> {
    const abs = this.url(url, opts.query)
    const res = await exchange({
      method: 'GET',
      url: abs,
      headers: this.headers({ accept: '*/*' }),
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      timeoutMs: Math.max(this.timeoutMs, opts.waitAtLeastMs ?? 0),
    }).catch((err: unknown) => {
      throw connectionError(abs, err)
    })
    if (res.status >= 400) {
      res.body.setEncoding('utf8')
      let text = ''
      for await (const chunk of res.body) text += chunk
      throw new ApiError(res.status, parseBody(text), 'GET', abs)
    }
    return Object.assign(res.body, { response: { headers: res.headers } })
  }

  /** The server's answer to a token login (`{token}` with 200; 400 for a wrong username or password). */
  tokenLogin(username: string, password: string): Promise<Answer<{ token?: string }>> {
    return this.request<{ token?: string }>('POST', this.tokenLoginUrl, { form: { username, password }, retry: true })
  }

  get tokenLoginUrl(): string {
    return `${this.server}/api-token-auth/`
  }

  /** The record at a record's path; at another path, an answer of the type named. */
  get<P extends RecordPath>(path: P, query?: Query): Promise<RecordAt<P>>
  get<T = unknown>(path: string, query?: Query): Promise<T>
  async get(path: string, query?: Query): Promise<unknown> {
    return this.ok(await this.request('GET', path, { query }), 'GET', path)
  }

  /** The record created in a list; at another path, an answer of the type named. */
  post<P extends ListPath>(path: P, json: unknown, opts?: { retry?: boolean }): Promise<ListRecord<P>>
  post<T = unknown>(path: string, json: unknown, opts?: { retry?: boolean }): Promise<T>
  async post(path: string, json: unknown, opts: { retry?: boolean } = {}): Promise<unknown> {
    return this.ok(await this.request('POST', path, { json, retry: opts.retry }), 'POST', path)
  }

  /** The record changed; at another path, an answer of the type named. */
  patch<P extends RecordPath>(path: P, json: unknown): Promise<RecordAt<P>>
  patch<T = unknown>(path: string, json: unknown): Promise<T>
  async patch(path: string, json: unknown): Promise<unknown> {
    return this.ok(await this.request('PATCH', path, { json, retry: true }), 'PATCH', path)
  }

  async delete(path: string): Promise<void> {
    this.ok(await this.request('DELETE', path), 'DELETE', path)
  }

  /** Every record of a list, across its pages. `flags` names the flag behind each filter of `query`, for the
   * refusal when the server ignored one that the records cannot be checked against (listFilters.ts); `ownFilters`
   * are filters of an extension path, applied by any server that answers it; `ahead`: the pages asked for at once
   * once the first tells how many there are (pages). */
  all<P extends ListPath>(
    path: P,
    query?: Query,
    flags?: Record<string, string>,
    ownFilters?: readonly string[],
    ahead?: number,
  ): Promise<ListRecord<P>[]>
  all<T = unknown>(
    path: string,
    query?: Query,
    flags?: Record<string, string>,
    ownFilters?: readonly string[],
    ahead?: number,
  ): Promise<T[]>
  async all(
    path: string,
    query: Query = {},
    flags?: Record<string, string>,
    ownFilters?: readonly string[],
    ahead = 1,
  ): Promise<unknown[]> {
    const records: unknown[] = []
    for await (const page of this.pages(path, query, undefined, flags, ownFilters, ahead)) records.push(...page)
    return records
  }

  /** The pages of a list, one array of records at a time, each record checked against the filters of `query`
   * (a server that ignores a filter answers every record: those that do not match are dropped here);
   * `onCount` hears the total the first page announces. With `ahead` above 1, a list of numbered pages (DRF's) has
   * that many of its later pages asked for at once, answered in order: a long list is read in a fraction of the
   * time its pages take one after another (each waits on the server's count and its offset). */
  pages<P extends ListPath>(
    path: P,
    query?: Query,
    onCount?: (count: number) => void,
    flags?: Record<string, string>,
    ownFilters?: readonly string[],
    ahead?: number,
  ): AsyncGenerator<ListRecord<P>[]>
  pages<T = unknown>(
    path: string,
    query?: Query,
    onCount?: (count: number) => void,
    flags?: Record<string, string>,
    ownFilters?: readonly string[],
    ahead?: number,
  ): AsyncGenerator<T[]>
  async *pages(
    path: string,
    query: Query = {},
    onCount?: (count: number) => void,
    flags?: Record<string, string>,
    ownFilters?: readonly string[],
    ahead = 1,
  ): AsyncGenerator<unknown[]> {
    const check = filterCheck(query, flags, ownFilters)
    let next: string | null = this.url(path, { page_size: MAX_PAGE_SIZE, ...query })
    const seen = new Set<string>()
    while (next && !seen.has(next)) {
      seen.add(next)
      const data: Page<unknown> | unknown[] = await this.get(next)
      if (Array.isArray(data)) {
        onCount?.(data.length)
        yield check.keep(data)
        return
      }
      if (seen.size === 1 && typeof data.count === 'number') onCount?.(data.count)
      yield check.keep(data.results ?? [])
      next = data.next ?? null
      const numbered = ahead > 1 && seen.size === 1 && next ? numberedPages(next, data) : undefined
      if (numbered) {
        for await (const page of readAhead(numbered, ahead, (url) => this.get<Page<unknown>>(url)))
          yield check.keep(page.results ?? [])
        return
      }
    }
  }

  private ok<T>(answer: Answer<T>, method: string, path: string): T {
    if (answer.status >= 400) throw new ApiError(answer.status, answer.data, method, this.url(path))
    return answer.data
  }

  private async withRetry<T>(
    method: string,
    url: string,
    retry: boolean,
    attempt: () => Promise<Answer<T>>,
  ): Promise<Answer<T>> {
    for (let n = 0; ; n++) {
      const last = !retry || n >= this.retries
      let answer: Answer<T>
      try {
        answer = await attempt()
      } catch (err) {
        if (last || !isRetryable(err)) throw connectionError(url, err)
        await sleep(this.backoffMs * 2 ** n)
        continue
      }
      if (!last && RETRY_STATUS.has(answer.status)) {
        await sleep(this.backoffMs * 2 ** n)
        continue
      }
      return answer
    }
  }
}

function timedOut(message: string): Error {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' })
}

/** The bytes a form will send, when it knows them (0 otherwise). */
function lengthOf(form: FormData): number {
  try {
    return form.getLengthSync()
  } catch {
    return 0
  }
}

function isRetryable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return typeof code === 'string' && (RETRY_CODES.has(code) || code === 'ETIMEDOUT')
}

function connectionError(url: string, err: unknown): Error {
  if (err instanceof ApiError || err instanceof ConnectionError) return err
  const code = (err as NodeJS.ErrnoException | null)?.code
  if (code) {
    const origin = safeOrigin(url)
    return new ConnectionError(
      url,
      code,
      `Cannot reach the server at ${origin}${code ? ` (${code})` : ''}: ${(err as Error).message}`,
    )
  }
  return err as Error
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** JSON whatever the content type says (the original service sends JSON as text/html). */
export function parseBody(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Names of the API's record paths in messages: `mediaFile/9/` is "media file 9". */
const RECORD_NAMES: Record<string, string> = {
  mediaFile: 'media file',
  tagSet: 'tag set',
  tagClass: 'tag class',
  jobResultFile: 'job result file',
  jobs: 'job',
  appPermission: 'grant',
  appUserGroup: 'group',
  jobParameters: 'job parameters',
  jobType: 'job type',
  sensorArray: 'sensor array',
}

/** "media file 99999 not found" for a plain 404 on a record's path (or below it); undefined otherwise. */
export function recordNotFound(url: string, body: unknown): string | undefined {
  const detail = errorDetail(body)
  if (detail && detail !== 'Not found.') return undefined
  let path: string
  try {
    path = new URL(url).pathname
  } catch {
    return undefined
  }
  const at = path.indexOf(API_PATH)
  if (at < 0) return undefined
  const [resource, id] = path.slice(at + API_PATH.length).split('/')
  if (!resource || !id || !/^\d+$/.test(id)) return undefined
  const name = RECORD_NAMES[resource] ?? resource.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)
  return `${name} ${id} not found`
}

/** A one-line description of an error answer, with DRF field errors shown per field. */
export function describeError(status: number, body: unknown): string {
  const detail = errorDetail(body)
  switch (status) {
    case 401:
      return `Not authenticated${detail ? ` (${detail})` : ''}: run mas login`
    case 403:
      return `Forbidden${detail ? `: ${detail}` : ''}`
    case 404:
      return detail && detail !== 'Not found.' ? `Not found: ${detail}` : 'Not found.'
    case 405:
      return `Not supported by this server${detail ? `: ${detail}` : ''}`
    default:
      return `${status >= 500 ? 'Server error' : 'Rejected'} (${status})${detail ? `: ${detail}` : ''}`
  }
}

/** DRF error bodies flattened: {detail}, {field: [msgs]}, or a list of per-item errors. */
export function errorDetail(body: unknown): string {
  if (body === undefined || body === null) return ''
  if (typeof body === 'string') return body.length > 200 || /<html/i.test(body) ? '' : body.trim()
  if (Array.isArray(body)) {
    const items = body
      .map((item, i) => {
        const d = errorDetail(item)
        return d ? `item ${i + 1}: ${d}` : ''
      })
      .filter(Boolean)
    return items.length ? items.join('; ') : body.map(String).join('; ')
  }
  if (typeof body === 'object') {
    const o = body as Record<string, unknown>
    if (typeof o.detail === 'string' && Object.keys(o).length === 1) return o.detail
    return Object.entries(o)
      .map(([k, v]) => {
        const msg = Array.isArray(v)
          ? v.map((x) => (typeof x === 'object' ? errorDetail(x) : String(x))).join(' ')
          : typeof v === 'object'
            ? errorDetail(v)
            : String(v)
        return k === 'non_field_errors' || k === 'detail' ? msg : `${k}: ${msg}`
      })
      .join('; ')
  }
  return String(body)
}

function numberFromEnv(name: string, fallback: number): number {
  const v = Number(process.env[name])
  return process.env[name] !== undefined && Number.isFinite(v) && v >= 0 ? v : fallback
}

/** Runs `fn` over items with at most `limit` running at once; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i], i)
    }
  })
  await Promise.all(workers)
  return results
}

/** The addresses of a numbered list's pages after the first (the first page's `next` names page 2, as DRF's page
 * numbers do), from the count and the first page's length; undefined for any other kind of `next`. */
function numberedPages(next: string, first: Page<unknown>): string[] | undefined {
  const size = first.results?.length ?? 0
  if (typeof first.count !== 'number' || size === 0) return undefined
  const url = new URL(next)
  if (url.searchParams.get('page') !== '2') return undefined
  const urls: string[] = []
  for (let page = 2; page <= Math.ceil(first.count / size); page++) {
    url.searchParams.set('page', String(page))
    urls.push(url.toString())
  }
  return urls
}

/** Each address's answer, in order, `ahead` of them asked at once. */
async function* readAhead<T>(urls: readonly string[], ahead: number, read: (url: string) => Promise<T>) {
  const reading: Promise<T>[] = []
  let asked = 0
  try {
    while (asked < urls.length || reading.length) {
      while (asked < urls.length && reading.length < ahead) reading.push(read(urls[asked++]))
      yield await reading.shift()!
    }
  } finally {
    // a reader that stops early, or a page that failed, leaves answers for nobody: their failures are no one's to hear
    for (const r of reading) r.catch(() => {})
  }
}
