import type { RawRow } from './detectorFormats.js'
import { nameRef } from './detectorFormats.js'

// AOEF, the JSON document of the soundevent library (Whombat's export): `{version, created_on, data}`, where
// `data` is a collection (`collection_type` annotation_set, annotation_project, prediction_set, model_run…)
// holding lists that refer to each other by uuid: recordings (with their path), sound_events (a recording and a
// geometry in seconds and Hz), sound_event_annotations (a sound event and tag ids) or sound_event_predictions (a
// sound event, a score and [tag id, score] pairs), and tags ({id, key, value}). A tag's class is the value of
// its first tag whose key names a class (docs/decisions.md §32); the other tags and the notes are annotations.

export const AOEF_VERSION = '1.1.0'

/** Tag keys that name a sound's class, in the order preferred. */
const CLASS_KEYS = ['class', 'species', 'label', 'call', 'call_type', 'event']
/** The features an export gives each sound event for its tag's flags (AOEF's features are numbers: 1 or 0), read back
 * as the tag's; a document without them (Whombat's own) gives user tags of its annotations, machine tags of its
 * predictions. */
export const FLAG_FEATURES = [
  ['mas_machine_tagged', 'machineTagged'],
  ['mas_user_tagged', 'userTagged'],
  ['mas_randomly_chosen', 'randomlyChosen'],
] as const

/** The note an export writes with each tag's provenance, and reads back. */
export const PROVENANCE_NOTE = 'mas provenance: '

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : [])

/** The time-frequency box around a geometry: BoundingBox [t0, f0, t1, f1], TimeInterval [t0, t1], TimeStamp t, and
 * every other kind (points, lines, polygons: [t, f] pairs) by the extremes of its pairs. */
export function boxOf(geometry: unknown): { start: number; end: number; low: number; high: number } | undefined {
  if (!isObject(geometry)) return undefined
  const c = geometry.coordinates
  const type = String(geometry.type ?? '')
  const nums = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number')
  if (type === 'BoundingBox' && nums(c) && c.length === 4) return { start: c[0], low: c[1], end: c[2], high: c[3] }
  if (type === 'TimeInterval' && nums(c) && c.length === 2) return { start: c[0], end: c[1], low: 0, high: 0 }
  if (type === 'TimeStamp' && typeof c === 'number') return { start: c, end: c, low: 0, high: 0 }
  const pairs: number[][] = []
  const walk = (v: unknown) => {
    if (nums(v) && v.length === 2) pairs.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
  }
  walk(c)
  if (!pairs.length) return undefined
  const ts = pairs.map((p) => p[0])
  const fs = pairs.map((p) => p[1])
  return { start: Math.min(...ts), end: Math.max(...ts), low: Math.min(...fs), high: Math.max(...fs) }
}

/** A tag's flags: its sound event's features where a mas export wrote them (`fromMas`), else those of an annotation (a
 * person's) or a prediction (a machine's). */
function flagsOf(features: Json, fromMas: boolean, machine: boolean): Record<string, boolean> {
  if (!fromMas) return machine ? { machineTagged: true } : { userTagged: true }
  const flags: Record<string, boolean> = {}
  for (const [name, flag] of FLAG_FEATURES) if (typeof features[name] === 'number') flags[flag] = features[name] !== 0
  return flags
}

/** Did a mas export write this sound event (its features hold a tag's flags)? */
const writtenByMas = (features: Json): boolean => FLAG_FEATURES.some(([name]) => typeof features[name] === 'number')

/** The rows of an AOEF document, each an item (its place among the annotations and predictions), or what is wrong. */
export function aoefRows(
  text: string,
  base: Record<string, unknown>,
): { rows: Array<RawRow & { item: number }>; errors: string[] } {
  let doc: unknown
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    return { rows: [], errors: [`not valid JSON (${(err as Error).message})`] }
  }
  if (!isObject(doc) || !isObject(doc.data))
    return { rows: [], errors: ['not an AOEF document (expected an object with "data")'] }
  const data = doc.data
  const recordings = new Map(list(data.recordings).map((r) => [String(r.uuid), String(r.path ?? '')]))
  const events = new Map(list(data.sound_events).map((e) => [String(e.uuid), e]))
  const tags = new Map(
    list(data.tags).map((t) => [Number(t.id), { key: String(t.key ?? ''), value: String(t.value ?? '') }]),
  )
  const provenance: Record<string, unknown> = {
    ...base,
    version: base.version ?? doc.version,
    parameters: {
      collection_type: data.collection_type,
      ...(typeof data.name === 'string' ? { name: data.name } : {}),
      ...(typeof data.version === 'string' ? { model_version: data.version } : {}),
    },
  }
  const rows: Array<RawRow & { item: number }> = []
  const errors: string[] = []
  const annotations = list(data.sound_event_annotations).map((a) => ({
    a,
    machine: false,
    score: undefined as unknown,
    tagIds: Array.isArray(a.tags) ? (a.tags as unknown[]) : [],
  }))
  const predictions = list(data.sound_event_predictions).map((a) => ({
    a,
    machine: true,
    score: a.score,
    tagIds: Array.isArray(a.tags) ? (a.tags as unknown[]).map((p) => (Array.isArray(p) ? (p as unknown[])[0] : p)) : [],
  }))
  ;[...annotations, ...predictions].forEach(({ a, machine, score, tagIds }, i) => {
    const item = i + 1
    const event = events.get(String(a.sound_event))
    if (!event) {
      errors.push(`item ${item}: sound event ${String(a.sound_event)} is not in the document`)
      return
    }
    const box = boxOf(event.geometry)
    if (!box) {
      errors.push(`item ${item}: sound event ${String(a.sound_event)} has no geometry mas can place`)
      return
    }
    const named = tagIds
      .map((id: unknown) => tags.get(Number(id)))
      .filter((t): t is { key: string; value: string } => t !== undefined)
    const own =
      named.find((t) => CLASS_KEYS.includes(t.key.toLowerCase())) ?? named.find((t) => t.key !== 'review') ?? named[0]
    const notes = list(a.notes).map((n) => String(n.message ?? ''))
    const kept = notes.find((n) => n.startsWith(PROVENANCE_NOTE))
    const note = notes.filter((n) => !n.startsWith(PROVENANCE_NOTE)).join('\n')
    const features = isObject(event.features) ? event.features : {}
    const fromMas = writtenByMas(features)
    const annotationsOut: Record<string, string> = {}
    for (const t of named) if (t !== own && t.key !== 'review') annotationsOut[t.key] = t.value
    if (note !== '') annotationsOut.notes = note
    // a mas export writes a provenance note for each tag that has one: without one, its tag was made by hand
    let rowProvenance: unknown = fromMas ? undefined : provenance
    if (kept !== undefined) {
      try {
        rowProvenance = JSON.parse(kept.slice(PROVENANCE_NOTE.length))
      } catch {
        rowProvenance = kept.slice(PROVENANCE_NOTE.length)
      }
    }
    rows.push({
      item,
      raw: {
        mediaFile: nameRef(recordings.get(String(event.recording)) ?? ''),
        tagClass: nameRef(own?.value),
        startTime: box.start,
        endTime: box.end,
        minFrequency: box.low,
        maxFrequency: box.high,
        strength:
          typeof score === 'number' ? score : typeof features.strength === 'number' ? features.strength : undefined,
        ...flagsOf(features, fromMas, machine),
        annotations: annotationsOut,
        provenance: rowProvenance,
      },
    })
  })
  return { rows, errors }
}
