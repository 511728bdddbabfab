import fc from 'fast-check'
import type { RouteTable } from '../../server/app.js'
import type { Endpoint } from '../../server/http/endpoint.js'

// Hostile requests for any route, as fast-check arbitraries: bodies of every
// content type (JSON with wrong types, out-of-range numbers, NUL bytes, invalid
// UTF-8, deep nesting, 1 MB strings; forms; multipart), query strings with
// unknown orderings and filters, junk path ids and headers.

/** JSON text emitted verbatim (numbers JSON.stringify cannot write: 1e400, -0, huge integers). */
export class RawJson {
  constructor(readonly text: string) {}
}

export const MEGABYTE = 'x'.repeat(1024 * 1024)

export const INJECTIONS = [
  "'; DROP TABLE tags; --",
  "1' OR '1'='1",
  '1 OR 1=1',
  '" OR ""="',
  '1; SELECT pg_sleep(10)',
  '$$;SELECT 1;$$',
  '{"$gt": ""}',
  '{"__proto__": {"admin": true}}',
  '__proto__',
  'constructor',
  'prototype',
  'id; DROP TABLE users',
  'r.id',
  '"r"."id"',
  '-id,--',
  '(select 1)',
  'upper(name)',
  'name desc nulls first',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\uffff',
  '𝄞🎵',
  '\u202e',
  '%00',
  '%ff',
  '%',
  '../../etc/passwd',
  '..\\..\\boot.ini',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  'null',
  'None',
  'true',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '-1',
  '0',
  '2147483648',
  '-2147483649',
  '9223372036854775808',
  '99999999999999999999999',
  '1.5',
  ' 1 ',
  '0x10',
  '',
  ' ',
  '\t\n',
  'last',
  '2026-13-45T25:61:61',
  '0000-00-00T00:00:00',
  '9999-12-31T23:59:59.9999999',
]

export const NUMBERS: unknown[] = [
  0,
  -0,
  1,
  -1,
  1.5,
  2147483647,
  2147483648,
  -2147483648,
  -2147483649,
  4294967296,
  9007199254740993,
  1e308,
  -1e308,
  5e-324,
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('1e-400'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('-0.0'),
  new RawJson('1E+2'),
]

const hostileString = fc.oneof(
  { arbitrary: fc.constantFrom(...INJECTIONS), weight: 6 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.constant(MEGABYTE), weight: 1 },
)

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 5 },
  { arbitrary: fc.constantFrom(...NUMBERS), weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
)

/** Values for a field: scalars of every type, lists and objects of them. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: hostileScalar, weight: 8 },
    { arbitrary: fc.array(tie('v'), { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 3 }), weight: 1 },
  ),
})).v

/** JSON.stringify that also writes RawJson verbatim. */
export function toJsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`)
      .join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

/** A JSON object over the route's field names (and some others), each with a hostile value. */
function objectOver(fields: string[]) {
  const key = fc.oneof(
    { arbitrary: fc.constantFrom(...fields, 'id', 'user'), weight: 5 },
    { arbitrary: fc.string({ maxLength: 10 }), weight: 1 },
  )
  return fc.dictionary(key, hostileValue, { maxKeys: Math.max(3, fields.length) })
}

export interface HostileRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  /** a short description, for failure messages */
  label: string
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/plain',
  'text/html',
  'application/xml',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=nothere',
  '',
  'garbage/garbage/garbage',
  ';;;',
]

export function multipart(
  parts: Array<{ name: string; filename?: string; content: string | Buffer }>,
  boundary: string,
  truncate: boolean,
): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name.replace(/["\r\n]/g, '_')}"${p.filename !== undefined ? `; filename="${p.filename.replace(/["\r\n]/g, '_')}"` : ''}`
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.filename !== undefined ? 'Content-Type: audio/wav\r\n' : ''}\r\n`,
      ),
    )
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content))
    chunks.push(Buffer.from('\r\n'))
  }
  if (!truncate) chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

type Body = { payload?: string | Buffer; contentType?: string; label: string }

function bodies(fields: string[]): fc.Arbitrary<Body> {
  const json = (v: unknown, label: string, contentType = 'application/json'): Body => ({
    payload: toJsonText(v),
    contentType,
    label,
  })
  const scalarText = fc.oneof(
    hostileString,
    fc.constantFrom(...NUMBERS).map((n) => toJsonText(n)),
  )
  return fc.oneof(
    { arbitrary: objectOver(fields).map((o) => json(o, 'json object')), weight: 8 },
    { arbitrary: fc.array(objectOver(fields), { maxLength: 4 }).map((a) => json(a, 'json array')), weight: 2 },
    { arbitrary: hostileScalar.map((v) => json(v, 'json scalar')), weight: 1 },
    {
      arbitrary: fc.constantFrom(10, 1000, 100_000).map((n) => ({
        payload: '['.repeat(n) + ']'.repeat(n),
        contentType: 'application/json',
        label: `nested arrays ${n}`,
      })),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom(10, 1000, 100_000).map((n) => ({
        payload: '{"a":'.repeat(n) + '1' + '}'.repeat(n),
        contentType: 'application/json',
        label: `nested objects ${n}`,
      })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...fields, 'name'), fc.uint8Array({ minLength: 1, maxLength: 16 }))
        .map(([k, bytes]) => ({
          payload: Buffer.concat([
            Buffer.from(`{"${k}":"`),
            Buffer.from([0xff, 0xfe, 0xc3]),
            Buffer.from(bytes),
            Buffer.from('"}'),
          ]),
          contentType: 'application/json',
          label: 'invalid utf-8 in json',
        })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(
          '{',
          '{"a":}',
          '[1,]',
          "{'a':1}",
          '\u0000',
          '{"a":"\u0000"}',
          'nul\u0000l',
          '\ufeff{}',
          '{"a":1}{"b":2}',
        )
        .map((p) => ({ payload: p, contentType: 'application/json', label: 'malformed json' })),
      weight: 1,
    },
    {
      arbitrary: fc.dictionary(fc.constantFrom(...fields, 'x'), scalarText, { maxKeys: 4 }).map((o) => ({
        payload: new URLSearchParams(o as Record<string, string>).toString(),
        contentType: 'application/x-www-form-urlencoded',
        label: 'form',
      })),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(
          fc.array(
            fc.record({
              name: fc.constantFrom(...fields, 'file', 'file', 'x'),
              filename: fc.option(fc.constantFrom('a.wav', '../../etc/passwd', '', 'x\u0000.wav', 'ü.wav'), {
                nil: undefined,
              }),
              content: fc.oneof(
                scalarText,
                fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
              ),
            }),
            { maxLength: 5 },
          ),
          fc.boolean(),
        )
        .map(([parts, truncate]) => ({
          payload: multipart(parts, 'XyZzYboundary', truncate),
          contentType: 'multipart/form-data; boundary=XyZzYboundary',
          label: truncate ? 'truncated multipart' : 'multipart',
        })),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(...CONTENT_TYPES),
          fc.oneof(
            hostileString,
            fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
          ),
        )
        .map(([contentType, payload]) => ({ payload, contentType, label: `raw ${contentType || 'no type'}` })),
      weight: 2,
    },
    { arbitrary: fc.constant({ label: 'no body' }), weight: 1 },
  )
}

function queryString(fields: string[], filters: string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { arbitrary: fc.constantFrom('ordering', 'page', 'page_size', 'format', 'search'), weight: 3 },
    { arbitrary: fc.constantFrom(...filters, ...fields, 'id'), weight: 3 },
    { arbitrary: fc.string({ maxLength: 10 }), weight: 1 },
  )
  const term = fc
    .tuple(fc.boolean(), fc.oneof(fc.constantFrom(...fields, 'id'), hostileString))
    .map(([desc, f]) => (desc ? `-${f}` : f))
  const ordering = fc.array(term, { maxLength: 3 }).map((a) => a.join(','))
  const pair = fc.oneof(
    fc.tuple(name, hostileString),
    fc.tuple(fc.constant('ordering'), ordering),
    fc.tuple(
      fc.constant('page_size'),
      fc.constantFrom('0', '-1', '1001', '1000000000000', '1e3', 'abc', '', '1.5', '10'),
    ),
    fc.tuple(fc.constant('page'), fc.constantFrom('0', '-1', 'last', 'first', '99999999999999999999', '2', '1.0', '')),
  )
  return fc.oneof(
    {
      arbitrary: fc.array(pair, { maxLength: 4 }).map((ps) => {
        const q = new URLSearchParams()
        for (const [k, v] of ps) q.append(k, v.length > 4096 ? v.slice(0, 4096) : v)
        const s = q.toString()
        return s ? `?${s}` : ''
      }),
      weight: 8,
    },
    {
      arbitrary: fc.constantFrom(
        '?%',
        '?%%%',
        '?a[b]=c&a[c]=d',
        '?ordering=id&ordering=-id',
        '?page=1&page=2',
        '?=',
        '?&&&',
        '?%00=%00',
        '?page_size=%ff',
      ),
      weight: 1,
    },
  )
}

const ID_SEGMENTS = [
  '0',
  '-1',
  '2147483648',
  '99999999999999999999999',
  'abc',
  '1.5',
  '1e3',
  '%00',
  '%FF',
  '1%27%20OR%20%271%27%3D%271',
  ' 1',
  '+1',
  '0x1',
  'x'.repeat(300),
  '%2e%2e',
]

function pathFor(url: string, realIds: number[], realNames: string[]): fc.Arbitrary<string> {
  const id = fc.oneof(
    { arbitrary: fc.constantFrom(...realIds.map(String)), weight: 3 },
    { arbitrary: fc.constantFrom(...ID_SEGMENTS), weight: 2 },
  )
  const wildcard = fc.oneof(
    fc.constantFrom(...realNames, ...realNames.map((n) => `${n}/`), ...realNames.map((n) => n.replace('/', '%2F'))),
    fc.constantFrom(
      'world/none.wav',
      '../../etc/passwd',
      '..%2F..%2Fetc%2Fpasswd',
      '%00',
      'a/../../b',
      '.hidden',
      '',
      'x'.repeat(300),
      '%ff%fe',
    ),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
  )
  const parts = url.split(/(:[A-Za-z]+|\*)/).filter((p) => p !== '')
  return fc
    .tuple(...parts.map((p) => (p === '*' ? wildcard : p.startsWith(':') ? id : fc.constant(p))))
    .map((ps) => ps.join(''))
}

function headers(authorized: Record<string, string>): fc.Arbitrary<Record<string, string>> {
  const authorization = fc.oneof(
    { arbitrary: fc.constant(authorized.authorization), weight: 6 },
    {
      arbitrary: fc.constantFrom(
        'Token',
        'Token ',
        'Token a b',
        `Token ${'f'.repeat(40)}`,
        'Token ' + 'x'.repeat(5000),
        'Basic',
        'Basic !!!',
        `Basic ${Buffer.from('nobody:nothing').toString('base64')}`,
        `Basic ${Buffer.from('\u0000:\u0000').toString('base64')}`,
        'Bearer abc',
        'Digest x',
        '\u00ff',
      ),
      weight: 1,
    },
  )
  return fc
    .record(
      {
        authorization,
        cookie: fc.constantFrom(
          '',
          'sessionid=' + 'a'.repeat(100),
          'sessionid=%00; csrftoken=x',
          "sessionid=' OR 1=1 --",
          'csrftoken=',
        ),
        'x-csrftoken': fc.constantFrom('', 'x', 'a'.repeat(64)),
        range: fc.constantFrom(
          '',
          'bytes=0-1',
          'bytes=-5',
          'bytes=5-1',
          'bytes=99999999999999999999-',
          'bytes=0-1,2-3',
          'items=0-1',
          'bytes=abc',
        ),
        'x-forwarded-proto': fc.constantFrom('', 'https', 'gopher', '\u0000'),
        accept: fc.constantFrom('', 'application/json', 'text/html', '*/*', 'application/xml'),
      },
      { requiredKeys: [] },
    )
    .map(
      (h) =>
        Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>,
    )
}

/** What a route accepts, from the route table. */
export interface RouteTarget {
  url: string
  methods: string[]
  fields: string[]
  filters: string[]
}

export function routeTargets(table: RouteTable): RouteTarget[] {
  return table.routes.map((r) => {
    const ep: Endpoint | undefined = table.endpoints.find((e) => e.path === r.url)
    const fieldDefs = { ...(ep?.doc?.record ?? {}), ...Object.assign({}, ...Object.values(ep?.doc?.fields ?? {})) }
    const fields = Object.keys(fieldDefs)
    const filters = Object.entries(fieldDefs)
      .filter(([, f]: [string, any]) => f.type === 'pk' || f.type === 'boolean')
      .map(([n]) => n)
    const methods = ep ? [...Object.keys(ep.methods), 'OPTIONS', ...(ep.methods.GET ? ['HEAD'] : [])] : r.methods
    return {
      url: r.url,
      methods: [...new Set(methods)],
      fields: fields.length ? fields : ['name'],
      filters: filters.length ? filters : ['library'],
    }
  })
}

/** Hostile requests for one method of one route, sent with `auth` (or junk in its place). */
export function hostileRequests(
  target: RouteTarget,
  method: string,
  auth: Record<string, string>,
  real: { ids: number[]; names: string[] },
): fc.Arbitrary<HostileRequest> {
  return fc
    .tuple(
      pathFor(target.url, real.ids, real.names),
      queryString(target.fields, target.filters),
      bodies(target.fields),
      headers(auth),
    )
    .map(([path, query, body, hdrs]) => {
      const h: Record<string, string> = { ...hdrs }
      if (body.contentType !== undefined && body.contentType !== '') h['content-type'] = body.contentType
      return {
        method,
        url: path + query,
        headers: h,
        payload: body.payload,
        label: `${method} ${(path + query).slice(0, 200)} [${body.label}] ${JSON.stringify(Object.keys(h))}`,
      }
    })
}

/** Why a 4xx body is not in the API's error shapes (docs/decisions.md §4), or null when it is. */
export function errorShapeProblem(body: unknown): string | null {
  const fieldErrors = (o: unknown, allowEmpty: boolean): string | null => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return 'not an object'
    const entries = Object.entries(o)
    if (!entries.length && !allowEmpty) return 'an empty object'
    for (const [k, v] of entries) {
      if (!Array.isArray(v) || !v.length) return `${k} is not a non-empty list`
      if (!v.every((m) => typeof m === 'string' && m.length > 0)) return `${k} holds something other than messages`
    }
    return null
  }
  if (Array.isArray(body)) {
    if (!body.length) return 'an empty list'
    for (const item of body) {
      const p = fieldErrors(item, true)
      if (p) return `bulk item: ${p}`
    }
    if (body.every((item) => Object.keys(item).length === 0)) return 'a bulk error without any error'
    return null
  }
  if (body !== null && typeof body === 'object' && 'detail' in body) {
    return typeof (body as any).detail === 'string' && Object.keys(body).length === 1
      ? null
      : 'detail is not a lone string'
  }
  return fieldErrors(body, false)
}
