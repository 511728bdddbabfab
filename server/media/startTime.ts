import type { IAudioMetadata } from 'music-metadata'

// When a recording started (README, "Recording start times"), as the recorder
// wrote it: from the file's own metadata, else from its name. Times are kept
// as written, without a zone (AudioMoth writes UTC); an offset given with the
// import shifts them, e.g. into local time.

/** Where a start time may come from: the metadata then the name, the name only, or nowhere. */
export const START_TIME_SOURCES = ['metadata', 'name', 'none'] as const
export type StartTimeSource = (typeof START_TIME_SOURCES)[number]

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** `YYYY-MM-DDThh:mm:ss` from its parts, or null when they are no real date and time. */
function timestamp(y: number, mo: number, d: number, h: number, mi: number, s: number): string | null {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
  if (
    t.getUTCFullYear() !== y ||
    t.getUTCMonth() !== mo - 1 ||
    t.getUTCDate() !== d ||
    t.getUTCHours() !== h ||
    t.getUTCMinutes() !== mi ||
    t.getUTCSeconds() !== s
  )
    return null
  return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}`
}

/** The first `YYYY-MM-DD hh:mm:ss` (or with a `T`) in a text, its zone ignored. */
function isoIn(text: string): string | null {
  const m = /(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})/.exec(text)
  return m ? timestamp(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) : null
}

/** AudioMoth's comment: "Recorded at 05:00:00 01/05/2026 (UTC) by AudioMoth …" (day/month/year). */
export function audioMothTime(comment: string): string | null {
  const m = /Recorded at (\d{2}):(\d{2}):(\d{2}) (\d{2})\/(\d{2})\/(\d{4})/.exec(comment)
  return m ? timestamp(+m[6], +m[5], +m[4], +m[1], +m[2], +m[3]) : null
}

/** GUANO metadata (a `guan` chunk): its `Timestamp:` line. */
export function guanoTime(text: string): string | null {
  const line = text.split(/\r?\n/).find((l) => /^Timestamp\s*:/.test(l))
  return line ? isoIn(line) : null
}

/** Wildlife Acoustics' `wamd` chunk: a run of (id: u16, size: u32, value) entries; id 5 is the start time. */
export function wamdTime(body: Buffer): string | null {
  for (let at = 0; at + 6 <= body.length;) {
    const id = body.readUInt16LE(at)
    const size = body.readUInt32LE(at + 2)
    if (id === 0x0005) return isoIn(body.toString('latin1', at + 6, Math.min(body.length, at + 6 + size)))
    at += 6 + size
  }
  return null
}

/** BWF `bext`: origination date `YYYY-MM-DD` (any separator) and time `hh:mm:ss`. */
export function bextTime(date: string, time: string): string | null {
  const d = /^(\d{4})\D(\d{2})\D(\d{2})$/.exec(date.trim())
  const t = /^(\d{2})\D(\d{2})\D(\d{2})$/.exec(time.trim())
  return d && t ? timestamp(+d[1], +d[2], +d[3], +t[1], +t[2], +t[3]) : null
}

/** The RIFF chunks of a WAV file's first bytes that music-metadata does not report (`guan`, `wamd`). */
export function riffChunks(head: Buffer, ids: string[]): Map<string, Buffer> {
  const found = new Map<string, Buffer>()
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE')
    return found
  for (let at = 12; at + 8 <= head.length;) {
    const id = head.toString('latin1', at, at + 4)
    const size = head.readUInt32LE(at + 4)
    if (ids.includes(id.toLowerCase()))
      found.set(id.toLowerCase(), head.subarray(at + 8, Math.min(head.length, at + 8 + size)))
    if (id === 'data') break
    at += 8 + size + (size % 2)
  }
  return found
}

/** The start time a recorder wrote into the file: AudioMoth's comment, GUANO, `wamd`, then BWF `bext`. */
export function metadataStartTime(meta: IAudioMetadata, head: Buffer): string | null {
  const comments = (meta.common.comment ?? []).map((c) => c.text ?? '')
  for (const tag of meta.native.exif ?? [])
    if (tag.id === 'ICMT' && typeof tag.value === 'string') comments.push(tag.value)
  for (const c of comments) {
    const t = audioMothTime(c)
    if (t) return t
  }
  const chunks = riffChunks(head, ['guan', 'wamd'])
  const guan = chunks.get('guan')
  const fromGuano = guan ? guanoTime(guan.toString('utf8')) : null
  if (fromGuano) return fromGuano
  const wamd = chunks.get('wamd')
  const fromWamd = wamd ? wamdTime(wamd) : null
  if (fromWamd) return fromWamd
  const exif = new Map((meta.native.exif ?? []).map((t) => [t.id, t.value]))
  const date = exif.get('bext.originationDate'),
    time = exif.get('bext.originationTime')
  return typeof date === 'string' && typeof time === 'string' ? bextTime(date, time) : null
}

/**
 * The start time in a file name (the last path segment): `20260501_050000`, `PREFIX_20260501_050000`,
 * `2026-05-01_05-00-00`, `2026-05-01 05:00:00`, `20260501T050000` and the like.
 */
export function nameStartTime(path: string): string | null {
  const name = path.split(/[\\/]/).pop() ?? ''
  const m = /(?:^|\D)(\d{4})-?(\d{2})-?(\d{2})[_T\s-](\d{2})[-:.]?(\d{2})[-:.]?(\d{2})(?!\d)/.exec(name)
  return m ? timestamp(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) : null
}

/** `+02:00`, `-05:30`, `+0200` or `Z` as minutes east of UTC; null when it is none of these. */
export function parseTimeOffset(text: string): number | null {
  if (/^\s*Z\s*$/i.test(text)) return 0
  const m = /^\s*([+-])(\d{2}):?(\d{2})\s*$/.exec(text)
  if (!m || +m[2] > 23 || +m[3] > 59) return null
  return (m[1] === '-' ? -1 : 1) * (+m[2] * 60 + +m[3])
}

/** A `YYYY-MM-DDThh:mm:ss` time moved by `minutes`. */
export function shiftTime(time: string, minutes: number): string {
  const t = new Date(`${time}Z`)
  t.setUTCMinutes(t.getUTCMinutes() + minutes)
  return t.toISOString().slice(0, 19)
}

/** The start time to store for a file: from `source` (metadata falls back to the name), shifted by `offset` minutes. */
export function startTimeOf(source: StartTimeSource, recorded: string | null, name: string, offset = 0): string | null {
  const found = source === 'none' ? null : ((source === 'metadata' ? recorded : null) ?? nameStartTime(name))
  return found && offset ? shiftTime(found, offset) : found
}
