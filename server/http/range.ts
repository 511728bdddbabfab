// The Range request header (RFC 9110 §14), for one range of a file: the
// answer is the range to send, 'unsatisfiable' (416), or null to send the
// whole file (no header, another unit, a malformed header or several ranges,
// which may always be answered with the whole representation).

export interface Range {
  start: number
  end: number
}

export function parseRange(header: string | undefined, size: number): Range | 'unsatisfiable' | null {
  if (!header) return null
  const eq = header.indexOf('=')
  if (eq < 0 || header.slice(0, eq).trim().toLowerCase() !== 'bytes') return null
  const specs = header
    .slice(eq + 1)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const ranges: Range[] = []
  for (const spec of specs) {
    const m = /^(\d*)-(\d*)$/.exec(spec)
    if (!m || (m[1] === '' && m[2] === '')) continue
    if (m[1] === '') {
      const suffix = Number(m[2])
      if (suffix > 0 && size > 0) ranges.push({ start: Math.max(0, size - suffix), end: size - 1 })
      continue
    }
    const start = Number(m[1])
    const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
    if (start <= end && start < size) ranges.push({ start, end })
  }
  if (ranges.length === 0) return 'unsatisfiable'
  return ranges.length === 1 ? ranges[0] : null
}
