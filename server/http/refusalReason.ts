// What a refused request's log line says of it (server/log.ts): the reason its answer gave, from the error
// body's shapes (docs/decisions.md §4): `detail`, field errors (`field: message`), `non_field_errors`, and
// a bulk request's per-item errors (`[2] field: message`), cut to REASON_CHARS. The body never carries a
// request's password or token, but a message may quote a value it refuses: in the errors of a field named
// like a secret, quoted text is replaced.

/** the longest reason a log line carries */
export const REASON_CHARS = 200

const SECRET_FIELD = /pass(word)?|token|secret|authori[sz]ation|cookie|csrf/i
const QUOTED = /"[^"]*"|'[^']*'|`[^`]*`/g

/** The reason in an error answer's payload (as fastify sends it: JSON text), or null when it has none. */
export function refusalReason(payload: unknown): string | null {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null
  if (text === null || text.length > 1 << 16) return null
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  const parts = reasons(body, '')
  if (!parts.length) return null
  const reason = parts.join('; ').replace(/\s+/g, ' ')
  return reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS - 1)}…` : reason
}

/** `message` said of the field at `at`, quoted text withheld where the field is a secret */
const said = (at: string, message: string) =>
  `${at ? `${at}: ` : ''}${SECRET_FIELD.test(at) ? message.replace(QUOTED, '"[redacted]"') : message}`

function reasons(body: unknown, at: string): string[] {
  if (typeof body === 'string') return [said(at, body)]
  if (Array.isArray(body)) {
    // a field's messages, or a bulk request's errors per item (empty for the items that were fine)
    if (body.every((m) => typeof m === 'string')) return body.length ? [said(at, body.join(' '))] : []
    return body.flatMap((item, i) => reasons(item, `${at}[${i}]`))
  }
  if (body && typeof body === 'object') {
    return Object.entries(body).flatMap(([key, value]) => {
      if (key === 'detail' || key === 'non_field_errors') return reasons(value, at)
      return reasons(value, !at ? key : at.endsWith(']') ? `${at} ${key}` : `${at}.${key}`)
    })
  }
  return []
}
