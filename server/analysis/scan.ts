import type { AudioSource } from './audioSource.js'
import { scoreWindow, type Detector } from './detector.js'
import { embedWindow, StretchSums } from './embedding.js'
import {
  BANDS,
  bandFloor,
  blockFrames,
  frameGrid,
  framesIn,
  melFilters,
  melFrameBatches,
  samplesFor,
  WINDOW_STEP_FRAMES,
  type BandRange,
  type FrameGrid,
} from './features.js'

// A detector run over a stretch of one file, block by block (docs/decisions.md §20): the frames of one
// block of 30 s (and the window's length past it) are held at a time, so memory does not grow with the
// file. A long file is split into stretches of whole blocks, scanned side by side on worker threads
// (threads.ts); a window belongs to the block it starts in, so the split changes nothing.

export interface Candidate {
  start: number
  end: number
  classIndex: number
  strength: number
}

export interface ScanResult {
  /** windows scored */
  windows: number
  /** the strongest score of any window (-1 when none was scored) */
  best: number
  /** the strongest windows at or above the minimum strength that do not overlap each other, best first */
  candidates: Candidate[]
}

/** How a file is cut into windows: its frames, the window in frames (fitted to a file shorter than it) and the blocks. */
export interface FilePlan {
  grid: FrameGrid
  totalFrames: number
  windowFrames: number
  /** the window's length in seconds, as scanned (shorter than asked for a file shorter than the window) */
  windowSeconds: number
  fitted: boolean
  blocks: number
  perBlock: number
}

export function planFile(sampleRate: number, samples: number, windowSeconds: number): FilePlan {
  const grid = frameGrid(sampleRate, windowSeconds)
  const totalFrames = framesIn(grid, samples)
  const asked = Math.max(1, Math.round(windowSeconds / grid.frameSeconds))
  const windowFrames = Math.max(1, Math.min(asked, totalFrames))
  const perBlock = blockFrames(grid)
  return {
    grid,
    totalFrames,
    windowFrames,
    fitted: windowFrames < asked,
    perBlock,
    windowSeconds: windowFrames < asked ? samples / sampleRate : windowSeconds,
    blocks: Math.max(1, Math.floor(totalFrames / perBlock)),
  }
}

/** Stretches of a file already tagged: candidates on them are not kept (docs/decisions.md §20). */
export interface Taken {
  /** tags a reviewer decided: no candidate overlaps them */
  decided: Span[]
  /** the examples themselves (when the file is an example recording): no candidate lies half or more on one, or holds half of one */
  examples: Span[]
}
export interface Span {
  start: number
  end: number
}

export const nothingTaken: Taken = { decided: [], examples: [] }

/** Whether a candidate lies on a stretch already tagged. */
export function isTaken(c: Span, taken: Taken): boolean {
  return (
    taken.decided.some((d) => c.start < d.end && c.end > d.start) ||
    taken.examples.some(
      (e) => Math.min(c.end, e.end) - Math.max(c.start, e.start) >= 0.5 * Math.min(c.end - c.start, e.end - e.start),
    )
  )
}

/** Scan blocks [fromBlock, toBlock) of the file, keeping at most `keep` candidates of at least `minimumStrength` not on a stretch
 * `taken`; `onBlock` hears of each block scanned (the job's progress within a file). */
export async function scanBlocks(
  source: AudioSource,
  detector: Detector,
  plan: FilePlan,
  fromBlock: number,
  toBlock: number,
  keep: number,
  minimumStrength: number,
  taken: Taken = nothingTaken,
  signal?: AbortSignal,
  onBlock?: () => void,
): Promise<ScanResult> {
  let windows = 0,
    best = -1
  const found: Candidate[] = []
  const { frameSeconds } = plan.grid
  const events = new CallEvents(minimumStrength)
  await forEachWindow(
    source,
    detector.range,
    plan,
    fromBlock,
    toBlock,
    WINDOW_STEP_FRAMES,
    (w, embedding) => {
      const { classIndex, strength } = scoreWindow(detector, embedding, Math.min(minimumStrength - 1e-9, best))
      windows++
      if (strength > best) best = strength
      for (const c of events.add({
        start: w * frameSeconds,
        end: (w + plan.windowFrames) * frameSeconds,
        classIndex,
        strength,
      }))
        if (!isTaken(c, taken)) found.push(c)
      if (found.length > 4 * keep + 64) found.splice(0, found.length, ...strongestApart(found, keep))
    },
    signal,
    onBlock,
  )
  for (const c of events.end()) if (!isTaken(c, taken)) found.push(c)
  const duration = source.info.frames / source.info.sampleRate
  return {
    windows,
    best,
    candidates: strongestApart(found, keep).map((c) => ({ ...c, end: Math.min(c.end, duration) })),
  }
}

/** Windows at or above this strength are a call: the model thinks a call more likely than not. */
export const CALL_STRENGTH = 0.5
const none: Candidate[] = []

/** Windows kept of one run of overlapping calls before it is cut (so that a chorus costs bounded memory). */
const MAX_RUN = 4096

/**
 * Windows in time order made into candidates (docs/decisions.md §20): a run of overlapping windows of one class
 * that are each a call (at least CALL_STRENGTH and the minimum strength) gives its strongest windows that do not
 * overlap each other, each widened to the run's windows that overlap it by half a window or more and lie nearer
 * it than any other: one candidate per call, as long as the call, however a long window bridges calls. A window
 * below CALL_STRENGTH (kept only when the minimum strength is lower) is a candidate of its own.
 */
export class CallEvents {
  private run: Candidate[] = []
  constructor(private readonly minimumStrength: number) {}

  /** Take the next window; returns the candidates now complete. */
  add(w: Candidate): Candidate[] {
    if (w.strength < this.minimumStrength) return none
    if (w.strength < CALL_STRENGTH) return [w]
    const last = this.run[this.run.length - 1]
    if (last && (last.classIndex !== w.classIndex || w.start >= last.end || this.run.length >= MAX_RUN)) {
      const done = this.end()
      this.run.push(w)
      return done
    }
    this.run.push(w)
    return none
  }

  /** The candidates of the run still open. */
  end(): Candidate[] {
    const run = this.run
    this.run = []
    if (!run.length) return []
    const peaks = strongestApart(run, run.length).map((p) => ({ ...p }))
    for (const c of run) {
      let nearest: Candidate | null = null
      for (const p of peaks)
        if (!nearest || Math.abs(c.start - p.start) < Math.abs(c.start - nearest.start)) nearest = p
      if (nearest && Math.min(c.end, nearest.end) - Math.max(c.start, nearest.start) >= 0.5 * (c.end - c.start)) {
        nearest.start = Math.min(nearest.start, c.start)
        nearest.end = Math.max(nearest.end, c.end)
      }
    }
    return peaks
  }
}

/**
 * Every window of the plan starting in blocks [fromBlock, toBlock) at a multiple of `step` frames, as its
 * embedding over the bands of `range`, given to `visit` with its first frame, in time order; `onBlock` is called as each
 * block's windows have all been visited.
 */
export async function forEachWindow(
  source: AudioSource,
  range: BandRange,
  plan: FilePlan,
  fromBlock: number,
  toBlock: number,
  step: number,
  visit: (frame: number, embedding: Float32Array) => void,
  signal?: AbortSignal,
  onBlock?: () => void,
): Promise<void> {
  const { sampleRate, frames: samples } = source.info
  const { grid } = plan
  const filters = melFilters(grid, { lo: range.lo, hi: Math.min(range.hi, sampleRate / 2) })
  const { totalFrames, windowFrames, perBlock, blocks } = plan
  const firstFrame = fromBlock * perBlock
  const blockEnd = (b: number) => (b >= blocks - 1 ? totalFrames : (b + 1) * perBlock)
  const lastFrame = Math.min(totalFrames, blockEnd(toBlock - 1) + windowFrames)
  const span = samplesFor(grid, firstFrame, lastFrame - firstFrame, samples)
  const chunks = source.chunks({ from: span.from, to: span.to, signal })
  // frames from `held` on (`count` of them), for the block being scored and the window's length past it
  let held = firstFrame
  let rows = new Float32Array((perBlock + windowFrames + 64) * BANDS)
  let count = 0
  let block = fromBlock
  const visitReady = (ended: boolean) => {
    while (block < toBlock) {
      const from = block * perBlock,
        to = blockEnd(block)
      if (!ended && held + count < Math.min(totalFrames, to + windowFrames)) return
      const available = held + count
      const floor = bandFloor(rows, held, from, Math.min(to, available))
      const sums = new StretchSums(rows, held, from, Math.min(available, to + windowFrames), floor)
      const lastStart = Math.min(totalFrames, available) - windowFrames
      for (let w = Math.ceil(from / step) * step; w < to && w <= lastStart; w += step)
        visit(w, embedWindow(sums, w, windowFrames))
      block++
      onBlock?.()
      const drop = Math.max(0, Math.min(count, block * perBlock - held))
      rows.copyWithin(0, drop * BANDS, count * BANDS)
      count -= drop
      held += drop
    }
  }
  for await (const batch of melFrameBatches(chunks, grid, filters, firstFrame, lastFrame - firstFrame)) {
    signal?.throwIfAborted()
    const added = batch.rows.length / BANDS
    if ((count + added) * BANDS > rows.length) {
      const bigger = new Float32Array(Math.max(2 * rows.length, (count + added) * BANDS))
      bigger.set(rows.subarray(0, count * BANDS))
      rows = bigger
    }
    rows.set(batch.rows, count * BANDS)
    count += added
    visitReady(false)
  }
  visitReady(true)
}

/** The `n` strongest candidates that do not overlap each other, strongest first (earlier first among equals). */
export function strongestApart(candidates: Candidate[], n: number): Candidate[] {
  const chosen: Candidate[] = []
  for (const c of [...candidates].sort((a, b) => b.strength - a.strength || a.start - b.start)) {
    if (chosen.length >= n) break
    if (chosen.every((o) => c.end <= o.start || c.start >= o.end)) chosen.push(c)
  }
  return chosen
}
