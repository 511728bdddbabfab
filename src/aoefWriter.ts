import { AOEF_VERSION, PROVENANCE_NOTE } from './aoef.js'
import { Spool } from './spool.js'
import { textMemo } from './textMemo.js'
import { annotationsOf, type TagRecord } from './tagFormats.js'

// A tag set written as an AOEF annotation set (src/aoef.ts reads one): a recording per tagged media file (its alias
// as its path), a sound event per tag (a BoundingBox, its strength a feature), and an annotation per tag with a
// `class` tag naming its class, a tag per annotation, a `review` tag with the reviewers' decisions where there are
// any, and its notes and provenance as notes. The document lists its recordings and tag vocabulary before the events,
// so each tag's event and annotation are written as it is added, into two spools on disk (src/spool.ts), and the
// document is written from them once every tag is seen: any number of tags is written with the memory of its
// vocabulary and files alone, each tag read once.

export interface AoefContext {
  alias: (id: number) => string
  duration: (id: number) => number | undefined
  sampleRate: (id: number) => number | undefined
  className: (id: number) => string | undefined
  review: (tagId: number) => string | undefined
  /** the document's created_on, and its annotations' and notes' */
  now: string
}

/** A uuid of a mas record, the same at each export (so a re-export is the same document). */
const uuidOf = (kind: number, id: number) => `00000000-0000-4000-8${kind}00-${id.toString(16).padStart(12, '0')}`

/** Stand-ins for the two long lists in the document's skeleton, where their items are written as they are read. */
const EVENTS = '\u0000sound_events\u0000'
const ANNOTATIONS = '\u0000sound_event_annotations\u0000'

export class AoefWriter {
  /** the document's tags: their ids by key, then value, and their keys and values in the order of their ids */
  private readonly tagIds = new Map<string, Map<string, number>>()
  private readonly tagList: Array<{ key: string; value: string }> = []
  /** the document's recordings: each tagged media file's uuid, in the order of their first tags */
  private readonly recordings = new Map<number, string>()
  /** a provenance note's message as JSON, of the provenance's JSON (the tags of one import share theirs) */
  private readonly provenanceMessage = textMemo((text) => JSON.stringify(PROVENANCE_NOTE + text))
  private readonly nowText: string
  /** the items of the document's two long lists, as JSON.stringify(…, null, 1) writes them there */
  private readonly events = Spool.open()
  private readonly annotations = Spool.open()
  private added = 0

  constructor(private readonly opts: AoefContext) {
    this.nowText = JSON.stringify(opts.now)
  }

  /** Tags of the document, in its order. */
  add(tags: readonly TagRecord[]): void {
    for (const t of tags) {
      const before = this.added++ === 0 ? '[\n   ' : ',\n   '
      const event = uuidOf(2, Number(t.id))
      this.annotations.append(before + this.annotationText(t, event))
      this.events.append(before + this.eventText(t, event))
    }
  }

  /** Lets go of the tags kept on disk. */
  close(): void {
    this.events.close()
    this.annotations.close()
  }

  /** The whole document, of every tag added. */
  async write(out: (text: string | Uint8Array) => Promise<void>): Promise<void> {
    const { opts } = this
    const data = {
      uuid: uuidOf(5, 0),
      collection_type: 'annotation_set',
      tags: this.tagList.map(({ key, value }, id) => ({ id, key, value })),
      recordings: [...this.recordings].map(([id, uuid]) => ({
        uuid,
        path: opts.alias(id),
        duration: opts.duration(id) ?? 0,
        channels: 1,
        samplerate: opts.sampleRate(id) ?? 0,
      })),
      sound_events: EVENTS,
      sound_event_annotations: ANNOTATIONS,
      clips: [],
      clip_annotations: [],
      created_on: opts.now,
    }
    const skeleton = JSON.stringify({ version: AOEF_VERSION, created_on: opts.now, data }, null, 1) + '\n'
    const [head, rest] = skeleton.split(JSON.stringify(EVENTS))
    const [middle, tail] = rest.split(JSON.stringify(ANNOTATIONS))
    const end = this.added ? '\n  ]' : '[]'
    await out(head)
    for await (const bytes of this.events.bytes()) await out(bytes)
    await out(end + middle)
    for await (const bytes of this.annotations.bytes()) await out(bytes)
    await out(end + tail)
  }

  private tagId(key: string, value: string): number {
    let values = this.tagIds.get(key)
    if (values === undefined) this.tagIds.set(key, (values = new Map<string, number>()))
    let id = values.get(value)
    if (id === undefined) {
      values.set(value, (id = this.tagList.length))
      this.tagList.push({ key, value })
    }
    return id
  }

  /** The uuid of a tag's recording, which is then one of the document's. */
  private recordingUuid(mediaFile: number): string {
    let uuid = this.recordings.get(mediaFile)
    if (uuid === undefined) this.recordings.set(mediaFile, (uuid = uuidOf(1, mediaFile)))
    return uuid
  }

  private tagsOf(t: TagRecord): number[] {
    const ids = [this.tagId('class', this.opts.className(Number(t.tagClass)) ?? String(t.tagClass))]
    for (const [key, value] of Object.entries(annotationsOf(t)))
      if (key !== 'notes' && key !== 'review') ids.push(this.tagId(key, String(value)))
    const review = this.opts.review(Number(t.id))
    if (review !== undefined) ids.push(this.tagId('review', review))
    return ids
  }

  // An event and an annotation as JSON.stringify(…, null, 1) writes them as items of the document's lists (three spaces
  // deep), written out here: that call and the indenting of its text were most of an export's time
  // (test/src/exportSpool.test.ts holds the document to the one JSON.stringify writes).

  private eventText(t: TagRecord, uuid: string): string {
    const features =
      typeof t.strength === 'number' ? `,\n    "features": {\n     "strength": ${arrayItem(t.strength)}\n    }` : ''
    return (
      `{\n    "uuid": "${uuid}",\n    "recording": "${this.recordingUuid(Number(t.mediaFile))}",` +
      `\n    "geometry": {\n     "type": "BoundingBox",\n     "coordinates": [` +
      `\n      ${arrayItem(t.startTime)},\n      ${arrayItem(t.minFrequency)},` +
      `\n      ${arrayItem(t.endTime)},\n      ${arrayItem(t.maxFrequency)}\n     ]\n    }${features}\n   }`
    )
  }

  private annotationText(t: TagRecord, event: string): string {
    const id = Number(t.id)
    const annotations = annotationsOf(t)
    const now = this.nowText
    // a note whose message is given as its JSON
    const note = (n: number, message: string) =>
      `{\n      "uuid": "${uuidOf(n, id)}",\n      "message": ${message},` +
      `\n      "is_issue": false,\n      "created_on": ${now}\n     }`
    let notes = ''
    if (typeof annotations.notes === 'string') notes = note(6, JSON.stringify(annotations.notes))
    if (t.provenance) notes += (notes ? ',\n     ' : '') + note(4, this.provenanceMessage(JSON.stringify(t.provenance)))
    return (
      `{\n    "uuid": "${uuidOf(3, id)}",\n    "sound_event": "${event}",` +
      `\n    "tags": [\n     ${this.tagsOf(t).join(',\n     ')}\n    ],` +
      (notes ? `\n    "notes": [\n     ${notes}\n    ],` : '') +
      `\n    "created_on": ${now}\n   }`
    )
  }
}

/** A value as JSON.stringify writes it in an array (where undefined is null). */
const arrayItem = (value: unknown): string =>
  typeof value === 'number'
    ? Number.isFinite(value)
      ? String(value) // what JSON.stringify writes of a finite number, without its generic path
      : 'null'
    : value === undefined
      ? 'null'
      : (JSON.stringify(value) ?? 'null')
