import type { InferenceSession } from 'onnxruntime-node'
import type { AudioSource } from '../audioSource.js'
import { windowSamples, type Manifest } from './manifest.js'
import { inputTensor } from './onnx.js'
import { resampler } from './resample.js'
import { WindowCutter, type WindowBatch } from './windows.js'

// One pass of a model over a recording, shared by ModelInference (scores, and the embeddings it keeps) and
// EmbedAudio (embeddings): decoded a chunk at a time, resampled to the model's rate, cut into its windows every
// hop, and run a batch at a time, in memory that does not grow with the file.

/** windows run through the model at once */
export const MODEL_BATCH = 16

/** The samples between window starts at the model's rate: `hopSeconds`, by default the model's window. */
export const hopSamples = (manifest: Manifest, hopSeconds: number | undefined) =>
  Math.max(1, Math.round((hopSeconds ?? manifest.windowSeconds) * manifest.sampleRate))

/** Every window of the recording through the model; `each` gets each batch with the model's outputs by name. */
export async function modelOverFile(
  source: AudioSource,
  session: InferenceSession,
  manifest: Manifest,
  hop: number,
  each: (batch: WindowBatch, out: InferenceSession.OnnxValueMapType) => void,
  signal?: AbortSignal,
): Promise<void> {
  const cutter = new WindowCutter(windowSamples(manifest), hop, MODEL_BATCH)
  const resample = await resampler(source.info.sampleRate, manifest.sampleRate)
  const run = async (batch: WindowBatch) => {
    each(
      batch,
      await session.run({ [manifest.input.name]: await inputTensor(manifest, batch.samples, batch.starts.length) }),
    )
  }
  for await (const chunk of source.chunks({ signal })) {
    for (const batch of cutter.push(resample.push(chunk.samples))) await run(batch)
  }
  for (const batch of cutter.push(resample.end())) await run(batch)
  const last = cutter.end()
  if (last) await run(last)
}
