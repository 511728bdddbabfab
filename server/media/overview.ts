import { availableParallelism } from 'node:os'
import { Piscina } from 'piscina'
import type { AudioSource } from '../analysis/audioSource.js'
import { energyBatches, frameLayout, type SpectraSettings } from '../analysis/spectra.js'
import type { AppConfig } from '../config.js'
import { ColumnFold, type FoldState, type Statistic } from './pictureColumns.js'
import { silencedChunks, type FrameSpan } from './silence.js'

// The columns of a picture of a stretch of any length (docs/decisions.md, "Overview pictures"): its frames
// computed chunk by chunk and folded into the columns as they come, in memory that depends on the picture's
// size alone. A stretch of more than PART_FRAMES frames is cut into parts folded on threads at once (one a
// core), each part's audio read from a little before its first frame, so that the frames it keeps are those
// of one pass over the whole stretch (the windows before them read, the smoothing over time settled).

/** a stretch of at most this many frames is folded in one part, on the calling thread */
const PART_FRAMES = 100_000

/** What a picture's columns are folded from: [from, to) samples of a file, `frames` frames of it into `columns`. */
export interface StretchPlan {
  range: { from: number; to: number }
  sampleRate: number
  settings: SpectraSettings
  frames: number
  columns: number
  statistic: Statistic
  /** frames silenced before they are folded (a library's speech policy muting them for this caller) */
  silenced?: FrameSpan[]
}

/** Frames [from, to) of a stretch: one part of its fold. */
export interface Part {
  from: number
  to: number
}

/** Parts of about equal size, one a thread (one part for a stretch of at most PART_FRAMES frames). */
export function partsOf(frames: number, threads: number): Part[] {
  const n = Math.max(1, Math.min(threads, Math.ceil(frames / PART_FRAMES)))
  return Array.from({ length: n }, (_, i) => ({
    from: Math.floor((i * frames) / n),
    to: Math.floor(((i + 1) * frames) / n),
  }))
}

/** Frames read before a part and dropped: its first frames' windows reach back half a window, and each frame
 * keeps `damping` of the one before, so that after these its values are those of one pass to within 1e-6. */
function warmUpFrames(size: number, hop: number, damping: number): number {
  return Math.ceil(size / hop) + 1 + (damping > 0 ? Math.ceil(Math.log(1e-6) / Math.log(damping)) : 0)
}

/** Frames [part.from, part.to) of the stretch, read from `source` and folded. */
export async function foldPart(source: AudioSource, plan: StretchPlan, part: Part): Promise<ColumnFold> {
  const l = frameLayout(plan.sampleRate, plan.settings)
  const fold = new ColumnFold(plan.frames, plan.columns, l.bands, plan.statistic)
  const first = part.from === 0 ? 0 : Math.max(0, part.from - warmUpFrames(l.size, l.hop, l.damping))
  const last = part.to >= plan.frames
  // frame g of the stretch is frame g − first of what is read from sample first × hop on
  const read = source.chunks({
    from: plan.range.from + first * l.hop,
    to: last ? plan.range.to : Math.min(plan.range.to, plan.range.from + part.to * l.hop + l.size),
  })
  const chunks = plan.silenced?.length ? silencedChunks(read, plan.silenced) : read
  for await (const batch of energyBatches(chunks, l)) {
    const at = first + batch.first,
      n = batch.rows.length / l.bands
    const from = Math.max(at, part.from),
      to = Math.min(at + n, part.to)
    if (to > from) fold.add(from, batch.rows.subarray((from - at) * l.bands, (to - at) * l.bands))
    if (!last && at + n >= part.to) break
  }
  return fold
}

/** A part folded on a thread (overviewTask.ts), which opens the stored file itself. */
export interface PartTask {
  storage: Pick<AppConfig, 'mediaDir' | 's3' | 'minBodyBytesPerSecond'>
  file: string
  plan: StretchPlan
  part: Part
}

let pool: Piscina<PartTask, FoldState> | undefined
/** The threads parts are folded on, made with the first long stretch; an idle thread ends after a while. */
const threads = () =>
  (pool ??= new Piscina<PartTask, FoldState>({
    filename: new URL('./overviewTask.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: availableParallelism(),
    idleTimeout: 10_000,
    // a part's garbage is a chunk's samples and frames at a time: a young generation of 16 MB semi-spaces
    // (V8's default) would only hold it longer
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  }))

/** The columns of a stretch of a stored file: its parts folded at once, on threads when there are several. */
export async function overviewColumns(
  storage: PartTask['storage'],
  file: string,
  source: AudioSource,
  plan: StretchPlan,
): Promise<ColumnFold> {
  const parts = partsOf(plan.frames, availableParallelism())
  if (parts.length === 1) return foldPart(source, plan, parts[0])
  const states = await Promise.all(parts.map((part) => threads().run({ storage, file, plan, part })))
  const fold = new ColumnFold(plan.frames, plan.columns, plan.settings.bands, plan.statistic)
  for (const s of states) fold.merge(s)
  return fold
}
