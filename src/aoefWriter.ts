import { AOEF_VERSION, PROVENANCE_NOTE } from './aoef.js'
import { Spool } from './spool.js'
import { jsonTextMemo } from './textMemo.js'
import { annotationsOf, type TagRecord } from './tagFormats.js'

// A tag set written as an AOEF annotation set (src/aoef.ts reads one): a recording per tagged media file (its alias
// as its path), a sound event per tag (a BoundingBox, its strength a feature), and an annotation per tag with a
// `class` tag naming its class, a tag per annotation, a `review` tag with the reviewers' decisions where there are
// any, and its notes and provenance as notes. The document is JSON without indentation, as soundevent's own `save`
// writes one (a third fewer bytes than an indented one; docs/decisions.md §32), but for a line break before each
// item of its two long lists, so that line tools read it a tag at a time. It lists its recordings and tag vocabulary before the events,
// so each tag's event and annotation are written as it is added, into two spools on disk (src/spool.ts), and the
// document is written from them once every tag is seen: any number of tags is written with the memory of its
// vocabulary and files alone, each tag read once.

export interface AoefContext {
  alias: (id: number) => string
  duration: (id: number) => number | undefined
  sampleRate: (id: number) => number | undefined
  className: (id: number) => string | undefined
  review: (tagId: number) => string | undefined
  /** the document's created_on (its annotations and notes have none: mas does not keep when each was made apart from
   * its tag, and soundevent reads an absent one as the time it reads it) */
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
  private readonly provenanceMessage = jsonTextMemo((text) => JSON.stringify(PROVENANCE_NOTE + text))
  /** the items of the document's two long lists, as JSON.stringify writes them there, each on a line */
  private readonly events = Spool.open()
  private readonly annotations = Spool.open()
  private added = 0

  constructor(private readonly opts: AoefContext) {}

  /** Tags of the document, in its order. */
  add(tags: readonly TagRecord[]): void {
    for (const t of tags) {
      const before = this.added++ === 0 ? '[\n' : ',\n'
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
    const skeleton = JSON.stringify({ version: AOEF_VERSION, created_on: opts.now, data }) + '\n'
    const [head, rest] = skeleton.split(JSON.stringify(EVENTS))
    const [middle, tail] = rest.split(JSON.stringify(ANNOTATIONS))
    const end = this.added ? '\n]' : '[]'
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

  // An event and an annotation as JSON.stringify writes them, written out here: that call was most of an export's
  // time (test/src/exportSpool.test.ts holds the document to the one JSON.stringify writes).

  private eventText(t: TagRecord, uuid: string): string {
    const features = typeof t.strength === 'number' ? `,"features":{"strength":${arrayItem(t.strength)}}` : ''
    return (
      `{"uuid":"${uuid}","recording":"${this.recordingUuid(Number(t.mediaFile))}",` +
      `"geometry":{"type":"BoundingBox","coordinates":[${arrayItem(t.startTime)},${arrayItem(t.minFrequency)},` +
      `${arrayItem(t.endTime)},${arrayItem(t.maxFrequency)}]}${features}}`
    )
  }

  private annotationText(t: TagRecord, event: string): string {
    const id = Number(t.id)
    const annotations = annotationsOf(t)
    // a note whose message is given as its JSON (is_issue left to its default, false)
    const note = (n: number, message: string) => `{"uuid":"${uuidOf(n, id)}","message":${message}}`
    let notes = ''
    if (typeof annotations.notes === 'string') notes = note(6, JSON.stringify(annotations.notes))
    if (t.provenance) notes += (notes ? ',' : '') + note(4, this.provenanceMessage(t.provenance))
    return (
      `{"uuid":"${uuidOf(3, id)}","sound_event":"${event}","tags":[${this.tagsOf(t).join(',')}]` +
      (notes ? `,"notes":[${notes}]` : '') +
      '}'
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
