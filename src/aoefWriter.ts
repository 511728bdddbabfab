import { AOEF_VERSION, PROVENANCE_NOTE } from './aoef.js'
import { annotationsOf, type TagRecord } from './tagFormats.js'

// A tag set written as an AOEF annotation set (src/aoef.ts reads one): a recording per tagged media file (its alias
// as its path), a sound event per tag (a BoundingBox, its strength a feature), and an annotation per tag with a
// `class` tag naming its class, a tag per annotation, a `review` tag with the reviewers' decisions where there are
// any, and its notes and provenance as notes. The document lists its recordings and tag vocabulary before the events,
// so each tag is seen once (`see`) before the document is written from a second reading of them: any number of tags
// is written with the memory of its vocabulary and files alone.

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
  private readonly tagIds = new Map<string, number>()
  private readonly files = new Set<number>()

  constructor(private readonly opts: AoefContext) {}

  /** A tag of the document, in the order they will be read again. */
  see(t: TagRecord): void {
    this.files.add(Number(t.mediaFile))
    this.tagsOf(t)
  }

  /** The whole document, its events and annotations from `tags()`, which reads the tags seen again, in that order. */
  async write(tags: () => AsyncIterable<readonly TagRecord[]>, out: (text: string) => Promise<void>): Promise<void> {
    const { opts } = this
    const data = {
      uuid: uuidOf(5, 0),
      collection_type: 'annotation_set',
      tags: [...this.tagIds.keys()].map((k, id) => {
        const [key, value] = k.split('\u0000')
        return { id, key, value }
      }),
      recordings: [...this.files].map((id) => ({
        uuid: uuidOf(1, id),
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
    await out(head)
    await writeList(tags(), (t) => this.event(t), out)
    await out(middle)
    await writeList(tags(), (t) => this.annotation(t), out)
    await out(tail)
  }

  private tagId(key: string, value: string): number {
    const k = `${key}\u0000${value}`
    let id = this.tagIds.get(k)
    if (id === undefined) this.tagIds.set(k, (id = this.tagIds.size))
    return id
  }

  private tagsOf(t: TagRecord): number[] {
    const ids = [this.tagId('class', this.opts.className(Number(t.tagClass)) ?? String(t.tagClass))]
    for (const [key, value] of Object.entries(annotationsOf(t)))
      if (key !== 'notes' && key !== 'review') ids.push(this.tagId(key, String(value)))
    const review = this.opts.review(Number(t.id))
    if (review !== undefined) ids.push(this.tagId('review', review))
    return ids
  }

  private event(t: TagRecord) {
    return {
      uuid: uuidOf(2, Number(t.id)),
      recording: uuidOf(1, Number(t.mediaFile)),
      geometry: { type: 'BoundingBox', coordinates: [t.startTime, t.minFrequency, t.endTime, t.maxFrequency] },
      ...(typeof t.strength === 'number' ? { features: { strength: t.strength } } : {}),
    }
  }

  private annotation(t: TagRecord) {
    const annotations = annotationsOf(t)
    const note = (n: number, message: string) => ({
      uuid: uuidOf(n, Number(t.id)),
      message,
      is_issue: false,
      created_on: this.opts.now,
    })
    const notes = [
      ...(typeof annotations.notes === 'string' ? [note(6, annotations.notes)] : []),
      ...(t.provenance ? [note(4, PROVENANCE_NOTE + JSON.stringify(t.provenance))] : []),
    ]
    return {
      uuid: uuidOf(3, Number(t.id)),
      sound_event: uuidOf(2, Number(t.id)),
      tags: this.tagsOf(t),
      ...(notes.length ? { notes } : {}),
      created_on: this.opts.now,
    }
  }
}

/** A list of the document's `data` (two levels deep), as JSON.stringify(…, null, 1) writes it, a batch at a time. */
async function writeList(
  batches: AsyncIterable<readonly TagRecord[]>,
  item: (t: TagRecord) => unknown,
  out: (text: string) => Promise<void>,
): Promise<void> {
  let first = true
  for await (const batch of batches) {
    let text = ''
    for (const t of batch) {
      text += (first ? '[\n   ' : ',\n   ') + JSON.stringify(item(t), null, 1).replace(/\n/g, '\n   ')
      first = false
    }
    await out(text)
  }
  await out(first ? '[]' : '\n  ]')
}
