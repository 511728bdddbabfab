import { AOEF_VERSION, FLAG_FEATURES, PROVENANCE_NOTE } from './aoef.js'
import { Spool } from './spool.js'
import { TextWriter } from './utf8Chunks.js'
import { jsonTextMemo } from './textMemo.js'
import { annotationsOf, type TagRecord } from './tagFormats.js'

// A tag set written as an AOEF annotation set (src/aoef.ts reads one): a recording per tagged media file (its alias as
// its path), a sound event per tag (a BoundingBox; its strength and its flags, as 1 or 0, features), and an annotation
// per tag with a `class` tag naming its class, a tag per annotation, a `review` tag with the reviewers' decisions where
// there are any, and its notes and provenance as notes. The document is JSON without indentation, as soundevent's own
// `save` writes one (a third fewer bytes than an indented one; docs/decisions.md §32), but for a line break before each
// item of its two long lists, so that line tools read it a tag at a time. Its annotations come first and are written as
// their tags come; each tag's sound event is kept in a spool on disk (src/spool.ts) and the events written after the
// last annotation, then the recordings and the tag vocabulary, known only then: any number of tags is written with the
// memory of its vocabulary and files alone, each tag read once.

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

/** A mas id as the last part of its records' uuids. */
const hexOf = (id: number) => id.toString(16).padStart(12, '0')

/** A uuid of a mas record, the same at each export (so a re-export is the same document): of its kind and its id's
 * hexOf. */
const uuidFrom = (kind: number, hex: string) => `00000000-0000-4000-8${kind}00-${hex}`
const uuidOf = (kind: number, id: number) => uuidFrom(kind, hexOf(id))

/** Stand-in for the list of annotations in the document's skeleton, where its items are written as they come. */
const ANNOTATIONS = '\u0000sound_event_annotations\u0000'

/** Stand-in for the list of sound events in the document's skeleton, where its items are written from the spool. */
const EVENTS = '\u0000sound_events\u0000'

export class AoefWriter {
  /** the document's tags: their ids by key, then value, and their keys and values in the order of their ids */
  private readonly tagIds = new Map<string, Map<string, number>>()
  private readonly tagList: Array<{ key: string; value: string }> = []
  /** the document's recordings: each tagged media file's uuid, in the order of their first tags */
  private readonly recordings = new Map<number, string>()
  /** a provenance note's message as JSON, of the provenance's JSON (the tags of one import share theirs) */
  private readonly provenanceMessage = jsonTextMemo((text) => JSON.stringify(PROVENANCE_NOTE + text))
  /** the document as it is written: its head, then each annotation as its tag comes */
  private readonly out: TextWriter
  /** the sound events, as JSON.stringify writes them in their list, each on a line */
  private readonly events = Spool.open()
  private added = 0

  constructor(
    private readonly opts: AoefContext,
    private readonly write: (bytes: Buffer) => Promise<void>,
  ) {
    this.out = new TextWriter(write)
  }

  /** Tags of the document, in its order: their annotations written, their events kept. */
  async add(tags: readonly TagRecord[]): Promise<void> {
    for (const t of tags) {
      const first = this.added++ === 0
      if (first) this.out.append(this.skeleton().head + '[')
      const before = first ? '\n' : ',\n'
      const hex = hexOf(Number(t.id))
      this.out.append(before + this.annotationText(t, hex))
      this.events.append(before + this.eventText(t, hex))
    }
    await this.out.drain()
  }

  /** Lets go of the events kept on disk. */
  close(): void {
    this.events.close()
  }

  /** The rest of the document, after the annotations of every tag added. */
  async finish(): Promise<void> {
    const { head, afterAnnotations, afterEvents } = this.skeleton()
    const out = this.out
    // with no tag, nothing was written yet, and the two lists are empty
    if (this.added === 0) out.append(head + '[')
    const end = this.added ? '\n]' : ']'
    out.append(end + afterAnnotations + '[')
    await out.drain(true)
    for await (const bytes of this.events.bytes()) await this.write(bytes)
    out.append(end + afterEvents)
    await out.drain(true)
  }

  /** The document but for its two long lists: before the annotations, between them and the events, after those. Its
   * recordings and vocabulary follow the lists, so that the annotations are written as their tags come (a JSON
   * document's members may come in any order; soundevent reads them whole). */
  private skeleton(): { head: string; afterAnnotations: string; afterEvents: string } {
    const { opts } = this
    const data = {
      uuid: uuidOf(5, 0),
      collection_type: 'annotation_set',
      sound_event_annotations: ANNOTATIONS,
      sound_events: EVENTS,
      tags: this.tagList.map(({ key, value }, id) => ({ id, key, value })),
      recordings: [...this.recordings].map(([id, uuid]) => ({
        uuid,
        path: opts.alias(id),
        duration: opts.duration(id) ?? 0,
        channels: 1,
        samplerate: opts.sampleRate(id) ?? 0,
      })),
      clips: [],
      clip_annotations: [],
      created_on: opts.now,
    }
    const text = JSON.stringify({ version: AOEF_VERSION, created_on: opts.now, data }) + '\n'
    const [head, rest] = text.split(JSON.stringify(ANNOTATIONS))
    const [afterAnnotations, afterEvents] = rest.split(JSON.stringify(EVENTS))
    return { head, afterAnnotations, afterEvents }
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

  private eventText(t: TagRecord, hex: string): string {
    const strength = typeof t.strength === 'number' ? `"strength":${arrayItem(t.strength)},` : ''
    const flags = FLAG_FEATURES.map(([name, flag]) => `"${name}":${t[flag] === true ? 1 : 0}`).join(',')
    const features = `,"features":{${strength}${flags}}`
    return (
      `{"uuid":"${uuidFrom(2, hex)}","recording":"${this.recordingUuid(Number(t.mediaFile))}",` +
      `"geometry":{"type":"BoundingBox","coordinates":[${arrayItem(t.startTime)},${arrayItem(t.minFrequency)},` +
      `${arrayItem(t.endTime)},${arrayItem(t.maxFrequency)}]}${features}}`
    )
  }

  private annotationText(t: TagRecord, hex: string): string {
    const annotations = annotationsOf(t)
    // a note whose message is given as its JSON (is_issue left to its default, false)
    const note = (n: number, message: string) => `{"uuid":"${uuidFrom(n, hex)}","message":${message}}`
    let notes = ''
    if (typeof annotations.notes === 'string') notes = note(6, JSON.stringify(annotations.notes))
    if (t.provenance) notes += (notes ? ',' : '') + note(4, this.provenanceMessage(t.provenance))
    return (
      `{"uuid":"${uuidFrom(3, hex)}","sound_event":"${uuidFrom(2, hex)}","tags":[${this.tagsOf(t).join(',')}]` +
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
