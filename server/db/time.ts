// Timestamps are server-local wall-clock times without a zone, as the API shows them.

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** 'YYYY-MM-DD hh:mm:ss' in the server's local time, the form stored in the database. */
export function localTimestamp(d: Date = new Date()): string {
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  )
}

/** Database form -> wire form 'YYYY-MM-DDThh:mm:ss'. */
export function wireTimestamp(s: string | null): string | null {
  return s === null ? null : s.slice(0, 19).replace(' ', 'T')
}

const INPUT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/

/** Wire input (fractional seconds allowed) -> database form, or null when it is not a valid timestamp. */
export function parseTimestamp(s: string): string | null {
  const m = INPUT.exec(s.trim())
  if (!m) return null
  const [, y, mo, d, h, mi, sec = '00'] = m
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec))
  if (
    date.getMonth() !== Number(mo) - 1 ||
    date.getDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(sec) > 59
  )
    return null
  return `${y}-${mo}-${d} ${h}:${mi}:${sec}`
}
