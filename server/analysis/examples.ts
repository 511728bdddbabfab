import type { Storage } from '../storage/storage.js'
import { openAudio, type AudioSource } from './audioSource.js'
import { spread, trainDetector, type Detector, type PositiveWindow } from './detector.js'
import { embedWindow, StretchSums } from './embedding.js'
import {
  bandFloor,
  frameGrid,
  framesIn,
  melFilters,
  melFrames,
  samplesFor,
  WINDOW_STEP_FRAMES,
  type BandRange,
} from './features.js'
import { forEachWindow, planFile } from './scan.js'

// The windows a detector learns from (docs/decisions.md §20): windows over each example tag (positives);
// counter-examples: windows of the example recordings outside every tag up to the recording's last example
// (what follows it was never labelled, and may hold the very calls sought), and windows over tags known not
// to be a call (rejected by a reviewer); and weak negatives: windows sampled from the recordings searched.
// Only the minute around each example tag is read, so a day-long example recording costs no more than a
// short one, and a few blocks of the searched recordings, so a season costs no more than a file.

export interface ExampleTag {
  mediaFile: number
  file: string
  tagClass: number
  start: number
  end: number
  minFrequency: number
  maxFrequency: number
  /** learn this tag's own windows only, not the recording around it (a reviewed tag: the calls beside it were never tagged) */
  alone?: boolean
}

/** A media file the job searches. */
export interface SearchedFile {
  id: number
  file: string
}

/** Seconds read before and after each example tag: its background and its counter-examples. */
export const CONTEXT_SECONDS = 30
/** At most this many counter-example windows, and as many weak negatives, are kept (spread evenly over all those found). */
const MAX_NEGATIVES = 2000
/** Blocks of the searched recordings the weak negatives are sampled from, spread over the files. */
const WEAK_BLOCKS = 16
/** A window holding at most this part of a tag (of the tag or of the window, whichever is shorter) is a counter-example. */
const MISALIGNED = 0.5
/** At most this many windows over one example. */
const WINDOWS_PER_EXAMPLE = 8

export interface Learned {
  detector: Detector
  /** windows learned from: over the examples, counter-examples (with rejected tags), weak negatives */
  examples: number
  negatives: number
  weakNegatives: number
  /** the example tags learned from, by media file: a scan of an example recording tags around them */
  exampleSpans: Map<number, Array<{ start: number; end: number }>>
}

/**
 * A detector from `examples` (tags of the classes to find) and `rejected` (tags known not to be their class),
 * comparing windows of `windowSeconds`, with weak negatives from `searched`. Files that cannot be read are
 * reported through `skip` and left out.
 */
export async function learnDetector(
  storage: Storage,
  examples: ExampleTag[],
  rejected: ExampleTag[],
  windowSeconds: number,
  searched: SearchedFile[],
  skip: (file: number, reason: Error) => void,
  signal?: AbortSignal,
): Promise<Learned> {
  const sources = new Map<number, AudioSource>()
  for (const t of [...examples, ...rejected]) {
    if (sources.has(t.mediaFile)) continue
    try {
      sources.set(t.mediaFile, await openAudio(storage, t.file))
    } catch (e) {
      skip(t.mediaFile, e as Error)
    }
  }
  const usable = examples.filter((t) => sources.has(t.mediaFile))
  if (!usable.length) throw new Error('None of the example tags lies on a media file that can be decoded.')
  const range = bandRangeOf(usable, sources)
  const positives: PositiveWindow[] = []
  const counter: Float32Array[] = []
  const rejectedWindows: Array<{ embedding: Float32Array; tagClass: number }> = []
  const byFile = new Map<number, ExampleTag[]>()
  for (const t of [...usable, ...rejected.filter((r) => sources.has(r.mediaFile))]) {
    if (!byFile.has(t.mediaFile)) byFile.set(t.mediaFile, [])
    byFile.get(t.mediaFile)!.push(t)
  }
  const exampleIndex = new Map(usable.map((t, i) => [t, i]))
  for (const [mediaFile, tags] of byFile) {
    signal?.throwIfAborted()
    const source = sources.get(mediaFile)!
    const { sampleRate } = source.info
    const grid = frameGrid(sampleRate, windowSeconds)
    const filters = melFilters(grid, { lo: range.lo, hi: Math.min(range.hi, sampleRate / 2) })
    const total = framesIn(grid, source.info.frames)
    const windowFrames = Math.max(1, Math.min(total, Math.round(windowSeconds / grid.frameSeconds)))
    const frameOf = (seconds: number) => Math.max(0, Math.min(total, Math.round(seconds / grid.frameSeconds)))
    const labelled = tags.filter((t) => !t.alone)
    // counter-examples end with the recording's last labelled example
    const lastLabelled = labelled.length ? Math.max(...labelled.map((t) => frameOf(t.end))) : 0
    for (const [from, to] of contexts(
      tags.map((t) => [frameOf(t.start - CONTEXT_SECONDS), frameOf(t.end + CONTEXT_SECONDS)]),
    )) {
      if (to <= from) continue
      const span = samplesFor(grid, from, to - from, source.info.frames)
      const frames = await melFrames(source.chunks({ ...span, signal }), grid, filters, from, to - from)
      const sums = new StretchSums(frames, from, from, to, bandFloor(frames, from, from, to))
      const fits = Math.min(windowFrames, to - from)
      const embed = (start: number) => embedWindow(sums, Math.max(from, Math.min(to - fits, start)), fits)
      for (const t of tags.filter((t) => frameOf(t.end) > from && frameOf(t.start) < to)) {
        const a = Math.max(from, Math.min(to - 1, frameOf(t.start)))
        const b = Math.min(to, Math.max(a + 1, frameOf(t.end)))
        const index = exampleIndex.get(t)
        if (index !== undefined) {
          for (const start of windowsOver(a, b, fits, WINDOWS_PER_EXAMPLE)) {
            positives.push({
              embedding: embed(start),
              tagClass: t.tagClass,
              example: index,
              minFrequency: t.minFrequency,
              maxFrequency: t.maxFrequency,
            })
          }
          continue
        }
        // a rejected sound is rejected however a window meets it: every window over it, as a scan steps
        for (let w = a - Math.floor(fits / 2); w <= b - Math.ceil(fits / 2); w += WINDOW_STEP_FRAMES) {
          rejectedWindows.push({ embedding: embed(w), tagClass: t.tagClass })
        }
      }
      // windows of the recording outside every tag, or holding less than half of one (a call seen askew, so
      // that the windows on a call are stronger the better they fit it), half a window apart (a quarter near a
      // tag), up to its last labelled example
      const step = Math.max(1, Math.floor(fits / 2)),
        near = Math.max(1, Math.floor(fits / 4))
      for (let w = from; w + fits <= to && w + fits <= lastLabelled;) {
        const overlapping = tags.filter((t) => frameOf(t.start) < w + fits && frameOf(t.end) > w)
        const askew = overlapping.every((t) => {
          const a = frameOf(t.start),
            b = Math.max(a + 1, frameOf(t.end))
          return Math.min(b, w + fits) - Math.max(a, w) <= MISALIGNED * Math.min(b - a, fits)
        })
        if (
          askew &&
          labelled.some((t) => frameOf(t.start - CONTEXT_SECONDS) <= w && w + fits <= frameOf(t.end + CONTEXT_SECONDS))
        )
          counter.push(embed(w))
        w += overlapping.length || tags.some((t) => Math.abs(frameOf(t.start) - w - fits) < fits) ? near : step
      }
    }
  }
  const weak = await weakNegatives(storage, searched, usable, range, windowSeconds, signal)
  const detector = trainDetector(range, {
    positives,
    counter: spread(counter, MAX_NEGATIVES),
    rejected: rejectedWindows,
    weak,
  })
  const exampleSpans = new Map<number, Array<{ start: number; end: number }>>()
  for (const t of usable)
    exampleSpans.set(t.mediaFile, [...(exampleSpans.get(t.mediaFile) ?? []), { start: t.start, end: t.end }])
  return {
    detector,
    exampleSpans,
    examples: positives.length,
    negatives: Math.min(counter.length, MAX_NEGATIVES) + rejectedWindows.length,
    weakNegatives: weak.length,
  }
}

/**
 * Starts of at most `n` windows of `length` frames over the tag [a, b): windows within a tag longer than the
 * window, windows holding a shorter tag; evenly spread over where they can start.
 */
export function windowsOver(a: number, b: number, length: number, n: number): number[] {
  const first = Math.min(a, b - length),
    last = Math.max(a, b - length)
  const count = Math.min(n, Math.floor((last - first) / WINDOW_STEP_FRAMES) + 1)
  if (count <= 1) return [Math.round((first + last) / 2)]
  return Array.from({ length: count }, (_, i) => Math.round(first + ((last - first) * i) / (count - 1)))
}

/**
 * Weak negatives: windows of WEAK_BLOCKS blocks spread evenly over the searched files (at most MAX_NEGATIVES),
 * leaving out those over an example tag. Most windows of a field recording hold no call; the few that do are
 * outweighed by the examples.
 */
async function weakNegatives(
  storage: Storage,
  searched: SearchedFile[],
  examples: ExampleTag[],
  range: BandRange,
  windowSeconds: number,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const picked =
    searched.length <= WEAK_BLOCKS
      ? searched
      : Array.from({ length: WEAK_BLOCKS }, (_, i) => searched[Math.floor(((i + 0.5) * searched.length) / WEAK_BLOCKS)])
  const opened: Array<{ file: SearchedFile; source: AudioSource; plan: ReturnType<typeof planFile> }> = []
  for (const file of picked) {
    try {
      const source = await openAudio(storage, file.file)
      if (source.info.frames > 0)
        opened.push({ file, source, plan: planFile(source.info.sampleRate, source.info.frames, windowSeconds) })
    } catch {
      /* a file that cannot be read is reported when it is scanned */
    }
  }
  const blocks = opened.flatMap((o, i) => Array.from({ length: o.plan.blocks }, (_, b) => [i, b] as const))
  const chosen =
    blocks.length <= WEAK_BLOCKS
      ? blocks
      : Array.from({ length: WEAK_BLOCKS }, (_, i) => blocks[Math.floor(((i + 0.5) * blocks.length) / WEAK_BLOCKS)])
  const out: Float32Array[] = []
  for (const [i, block] of chosen) {
    const { file, source, plan } = opened[i]
    const frameSeconds = plan.grid.frameSeconds
    const over = examples.filter((t) => t.mediaFile === file.id)
    const step = Math.max(WINDOW_STEP_FRAMES, Math.floor((plan.perBlock * WEAK_BLOCKS) / MAX_NEGATIVES))
    await forEachWindow(
      source,
      range,
      plan,
      block,
      block + 1,
      step,
      (w, embedding) => {
        const start = w * frameSeconds,
          end = (w + plan.windowFrames) * frameSeconds
        if (!over.some((t) => t.start < end && t.end > start)) out.push(embedding)
      },
      signal,
    )
  }
  return spread(out, MAX_NEGATIVES)
}

/** The frequencies compared: the examples' band with an octave of context below and above, within every example file's range. */
export function bandRangeOf(tags: ExampleTag[], sources: Map<number, AudioSource>): BandRange {
  let lo = Infinity,
    hi = 0,
    nyquist = Infinity
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
