import type { Storage } from '../storage/storage.js'
import { openAudio, type AudioSource } from './audioSource.js'
import { trainDetector, type Detector, type LabelledShape } from './detector.js'
import {
  bandFloor, frameGrid, framesIn, melFilters, melFrames, samplesFor, windowShape, WINDOW_STEP_FRAMES, type BandRange,
} from './features.js'

// The examples a detector learns from (docs/decisions.md §20): each example tag's shape, and
// counter-examples: windows of the example recordings outside every tag, and tags known not to be a call
// (rejected by a reviewer). Only the minute around each tag is read, so a day-long example recording costs
// no more than a short one.

export interface ExampleTag {
  mediaFile: number
  file: string
  tagClass: number
  start: number
  end: number
  minFrequency: number
  maxFrequency: number
  /** learn this tag's own shape only, not the recording around it (a reviewed tag: the calls beside it were never tagged) */
  alone?: boolean
}

/** Seconds read before and after each example tag: its background and its counter-examples. */
export const CONTEXT_SECONDS = 30
/** At most this many counter-example windows are kept (spread evenly over all those found). */
const MAX_NEGATIVES = 2000

export interface Learned { detector: Detector; examples: number; negatives: number }

/**
 * A detector from `examples` (tags of the classes to find) and `rejected` (tags known not to be their class),
 * comparing windows of `windowSeconds`. Files that cannot be read are reported through `skip` and left out.
 */
export async function learnDetector(storage: Storage, examples: ExampleTag[], rejected: ExampleTag[], windowSeconds: number,
  skip: (file: number, reason: Error) => void, signal?: AbortSignal): Promise<Learned> {
  const sources = new Map<number, AudioSource>()
  for (const t of [...examples, ...rejected]) {
    if (sources.has(t.mediaFile)) continue
    try { sources.set(t.mediaFile, await openAudio(storage, t.file)) } catch (e) { skip(t.mediaFile, e as Error) }
  }
  const usable = examples.filter((t) => sources.has(t.mediaFile))
  if (!usable.length) throw new Error('None of the example tags lies on a media file that can be decoded.')
  const range = bandRangeOf(usable, sources)
  const shapes: LabelledShape[] = []
  const negatives: Float32Array[] = []
  const rejectedShapes: LabelledShape[] = []
  const byFile = new Map<number, ExampleTag[]>()
  for (const t of [...usable, ...rejected.filter((r) => sources.has(r.mediaFile))]) {
    if (!byFile.has(t.mediaFile)) byFile.set(t.mediaFile, [])
    byFile.get(t.mediaFile)!.push(t)
  }
  const isExample = new Set(usable)
  for (const [mediaFile, tags] of byFile) {
    signal?.throwIfAborted()
    const source = sources.get(mediaFile)!
    const { sampleRate } = source.info
    const grid = frameGrid(sampleRate)
    const filters = melFilters(grid, { lo: range.lo, hi: Math.min(range.hi, sampleRate / 2) })
    const total = framesIn(grid, source.info.frames)
    const windowFrames = Math.max(1, Math.round(windowSeconds / grid.frameSeconds))
    const frameOf = (seconds: number) => Math.max(0, Math.min(total, Math.round(seconds / grid.frameSeconds)))
    for (const [from, to] of contexts(tags.map((t) => [frameOf(t.start - CONTEXT_SECONDS), frameOf(t.end + CONTEXT_SECONDS)]))) {
      if (to <= from) continue
      const span = samplesFor(grid, from, to - from, source.info.frames)
      const frames = await melFrames(source.chunks({ ...span, signal }), grid, filters, from, to - from)
      const floor = bandFloor(frames, from, from, to)
      const inside = tags.filter((t) => frameOf(t.end) > from && frameOf(t.start) < to)
      for (const t of inside) {
        const a = Math.max(from, Math.min(to - 1, frameOf(t.start)))
        const b = Math.min(to, Math.max(a + 1, frameOf(t.end)))
        const labels = { tagClass: t.tagClass, minFrequency: t.minFrequency, maxFrequency: t.maxFrequency }
        if (isExample.has(t)) {
          shapes.push({ shape: windowShape(frames, from, a, b - a, floor), ...labels })
          continue
        }
        // a rejected sound is rejected however a window meets it: every window over it, as a scan steps
        for (let w = a - Math.floor(windowFrames / 2); w <= b - Math.ceil(windowFrames / 2); w += WINDOW_STEP_FRAMES) {
          const start = Math.max(from, Math.min(to - windowFrames, w))
          rejectedShapes.push({ shape: windowShape(frames, from, start, Math.min(windowFrames, to - start), floor), ...labels })
        }
      }
      // windows of the recording outside every tag, half a window apart
      const step = Math.max(1, Math.floor(windowFrames / 2))
      for (let w = from; w + windowFrames <= to; w += step) {
        if (tags.some((t) => frameOf(t.start) < w + windowFrames && frameOf(t.end) > w)) continue
        if (!tags.some((t) => !t.alone && frameOf(t.start - CONTEXT_SECONDS) <= w && w + windowFrames <= frameOf(t.end + CONTEXT_SECONDS))) continue
        negatives.push(windowShape(frames, from, w, windowFrames, floor))
      }
    }
  }
  const kept = negatives.length <= MAX_NEGATIVES ? negatives
    : Array.from({ length: MAX_NEGATIVES }, (_, i) => negatives[Math.floor(i * negatives.length / MAX_NEGATIVES)])
  return { detector: trainDetector(range, shapes, kept, rejectedShapes), examples: shapes.length, negatives: kept.length + rejectedShapes.length }
}

/** The frequencies compared: the examples' band with an octave of context below and above, within every example file's range. */
export function bandRangeOf(tags: ExampleTag[], sources: Map<number, AudioSource>): BandRange {
  let lo = Infinity, hi = 0, nyquist = Infinity
  for (const t of tags) {
    const n = sources.get(t.mediaFile)!.info.sampleRate / 2
    nyquist = Math.min(nyquist, n)
    const banded = t.maxFrequency > t.minFrequency && t.maxFrequency > 0
    lo = Math.min(lo, banded ? Math.max(0, t.minFrequency) : 0)
    hi = Math.max(hi, banded ? Math.min(t.maxFrequency, n) : n)
  }
  const top = Math.min(nyquist, hi * 2)
  return { lo: Math.min(lo / 2, top / 2), hi: top }
}

/** Frame ranges merged where they overlap. */
function contexts(ranges: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1]
    if (last && a <= last[1]) last[1] = Math.max(last[1], b)
    else out.push([a, b])
  }
  return out
}
