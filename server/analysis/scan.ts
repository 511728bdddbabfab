import type { AudioSource } from './audioSource.js'
import { scoreShape, type Detector } from './detector.js'
import {
  BANDS, bandFloor, blockFrames, frameGrid, framesIn, melFilters, melFrameBatches, samplesFor, windowShape, WINDOW_STEP_FRAMES,
  type BandRange,
} from './features.js'

// A detector run over a stretch of one file, block by block (docs/decisions.md §20): the frames of one
// block of 30 s (and the window's length past it) are held at a time, so memory does not grow with the
// file. A long file is split into stretches of whole blocks, scanned side by side on worker threads
// (threads.ts); a window belongs to the block it starts in, so the split changes nothing.

export interface Candidate { start: number; end: number; classIndex: number; strength: number }

export interface ScanResult {
  /** windows scored */
  windows: number
  /** the strongest score of any window (-1 when none was scored) */
  best: number
  /** the strongest windows at or above the minimum strength that do not overlap each other, best first */
  candidates: Candidate[]
}

/** How a file is cut into windows: the window in frames (fitted to a file shorter than it) and the blocks. */
export interface FilePlan {
  totalFrames: number
  windowFrames: number
  /** the window's length in seconds, as scanned (shorter than asked for a file shorter than the window) */
  windowSeconds: number
  fitted: boolean
  blocks: number
  perBlock: number
}

export function planFile(sampleRate: number, samples: number, windowSeconds: number): FilePlan {
  const grid = frameGrid(sampleRate)
  const totalFrames = framesIn(grid, samples)
  const asked = Math.max(1, Math.round(windowSeconds / grid.frameSeconds))
  const windowFrames = Math.max(1, Math.min(asked, totalFrames))
  const perBlock = blockFrames(grid)
  return {
    totalFrames, windowFrames, fitted: windowFrames < asked, perBlock,
    windowSeconds: windowFrames < asked ? samples / sampleRate : windowSeconds,
    blocks: Math.max(1, Math.floor(totalFrames / perBlock)),
  }
}

/** Scan blocks [fromBlock, toBlock) of the file, keeping at most `keep` candidates of at least `minimumStrength`. */
export async function scanBlocks(source: AudioSource, detector: Detector, plan: FilePlan, fromBlock: number, toBlock: number,
  keep: number, minimumStrength: number, signal?: AbortSignal): Promise<ScanResult> {
  let windows = 0, best = -1
  const found: Candidate[] = []
  const frameSeconds = frameGrid(source.info.sampleRate).frameSeconds
  await forEachWindow(source, detector.range, plan, fromBlock, toBlock, WINDOW_STEP_FRAMES, (w, shape) => {
    const { classIndex, strength } = scoreShape(detector, shape)
    windows++
    if (strength > best) best = strength
    if (strength >= minimumStrength) {
      found.push({ start: w * frameSeconds, end: (w + plan.windowFrames) * frameSeconds, classIndex, strength })
      if (found.length > 4 * keep + 64) found.splice(0, found.length, ...strongestApart(found, keep))
    }
  }, signal)
  const duration = source.info.frames / source.info.sampleRate
  return {
    windows, best,
    candidates: strongestApart(found, keep).map((c) => ({ ...c, end: Math.min(c.end, duration) })),
  }
}

/**
 * Every window of the plan starting in blocks [fromBlock, toBlock) at a multiple of `step` frames, as its
 * shape over the bands of `range`, given to `visit` with its first frame, in time order.
 */
export async function forEachWindow(source: AudioSource, range: BandRange, plan: FilePlan, fromBlock: number, toBlock: number,
  step: number, visit: (frame: number, shape: Float32Array) => void, signal?: AbortSignal): Promise<void> {
  const { sampleRate, frames: samples } = source.info
  const grid = frameGrid(sampleRate)
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
      const from = block * perBlock, to = blockEnd(block)
      if (!ended && held + count < Math.min(totalFrames, to + windowFrames)) return
      const floor = bandFloor(rows, held, from, Math.min(to, held + count))
      const lastStart = totalFrames - windowFrames
      for (let w = Math.ceil(from / step) * step; w < to && w <= lastStart; w += step) visit(w, windowShape(rows, held, w, windowFrames, floor))
      block++
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
