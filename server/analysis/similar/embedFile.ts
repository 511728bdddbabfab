import type { InferenceSession } from 'onnxruntime-node'
import type { AudioSource } from '../audioSource.js'
import { EMBEDDING_SIZE } from '../embedding.js'
import type { BandRange } from '../features.js'
import type { Manifest } from '../models/manifest.js'
import { hopSamples, modelOverFile } from '../models/overFile.js'
import type { WindowBatch } from '../models/windows.js'
import { forEachWindow, planFile } from '../scan.js'

// Every window's embedding of one recording (docs/decisions.md §35): the built-in embedding of discovery
// (embedding.ts) over a fixed band, or a model's embedding output. Windows start every `step` seconds from 0.

/**
 * The bands the built-in kind spans, whatever the file: 150 Hz (below it, wind and handling) to 11,025 Hz (the
 * Nyquist frequency of 22,050 Hz, the lowest rate field recorders commonly use), cut at a lower file's Nyquist.
 * One range for every file, so that the windows of a library are comparable.
 */
export const BUILTIN_RANGE: BandRange = { lo: 150, hi: 11_025 }

export interface FileEmbeddings {
  dimensions: number
  /** windows × dimensions */
  vectors: Float32Array
  windows: number
  /** the window as the file's rate made it, and the seconds between window starts */
  lengthSeconds: number
  stepSeconds: number
}

/** Growing storage for windows of `dimensions` values. */
export class EmbeddingRows {
  data: Float32Array
  count = 0
  constructor(readonly dimensions: number) {
    this.data = new Float32Array(dimensions * 64)
  }
  push(v: ArrayLike<number>, from = 0): void {
    if ((this.count + 1) * this.dimensions > this.data.length) {
      const bigger = new Float32Array(this.data.length * 2)
      bigger.set(this.data)
      this.data = bigger
    }
    for (let j = 0; j < this.dimensions; j++) this.data[this.count * this.dimensions + j] = v[from + j]
    this.count++
  }
  done = () => this.data.slice(0, this.count * this.dimensions)
}

/** The built-in embedding of every window of `windowSeconds`, one every `hopSeconds` (rounded to the file's frames). */
export async function embedBuiltin(
  source: AudioSource,
  windowSeconds: number,
  hopSeconds: number,
  signal?: AbortSignal,
): Promise<FileEmbeddings> {
  const plan = planFile(source.info.sampleRate, source.info.frames, windowSeconds)
  const step = Math.max(1, Math.round(hopSeconds / plan.grid.frameSeconds))
  const rows = new EmbeddingRows(EMBEDDING_SIZE)
  const expected: number[] = []
  await forEachWindow(
    source,
    BUILTIN_RANGE,
    plan,
    0,
    plan.blocks,
    step,
    (frame, embedding) => {
      expected.push(frame)
      rows.push(embedding)
    },
    signal,
  )
  // windows come in time order, every `step` frames from 0
  for (let i = 0; i < expected.length; i++)
    if (expected[i] !== i * step) throw new Error(`window ${i} starts at frame ${expected[i]}, not ${i * step}`)
  return {
    dimensions: EMBEDDING_SIZE,
    vectors: rows.done(),
    windows: rows.count,
    lengthSeconds: plan.windowFrames * plan.grid.frameSeconds,
    stepSeconds: step * plan.grid.frameSeconds,
  }
}

/** A model's embedding of each of its windows, one every `hopSeconds` (default: its window), at the model's rate. */
export async function embedWithModel(
  source: AudioSource,
  session: InferenceSession,
  manifest: Manifest,
  hopSeconds: number | undefined,
  signal?: AbortSignal,
): Promise<FileEmbeddings> {
  const output = manifest.outputs.embedding
  if (!output) throw new Error('the model has no embedding output (its manifest names none)')
  const hop = hopSamples(manifest, hopSeconds)
  const rows = new ModelEmbeddings(output)
  await modelOverFile(source, session, manifest, hop, (batch, out) => rows.add(batch, out), signal)
  return rows.result(manifest, hop)
}

/** A model's embedding output, window after window, as a pass over a file gives them. */
export class ModelEmbeddings {
  #rows: EmbeddingRows | null = null
  constructor(readonly output: string) {}

  add(batch: WindowBatch, out: InferenceSession.OnnxValueMapType): void {
    const values = out[this.output].data as Float32Array
    const d = values.length / batch.starts.length
    this.#rows ??= new EmbeddingRows(d)
    for (let w = 0; w < batch.starts.length; w++) this.#rows.push(values, w * d)
  }

  result(manifest: Manifest, hop: number): FileEmbeddings {
    const rows = this.#rows
    return {
      dimensions: rows?.dimensions ?? 0,
      vectors: rows ? rows.done() : new Float32Array(0),
      windows: rows?.count ?? 0,
      lengthSeconds: manifest.windowSeconds,
      stepSeconds: hop / manifest.sampleRate,
    }
  }
}
