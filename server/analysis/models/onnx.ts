import type { InferenceSession } from 'onnxruntime-node'
import { windowSamples, type Manifest } from './manifest.js'

// A model's ONNX file, loaded by ONNX Runtime (its CPU library ships in the npm package; its install script,
// which would fetch GPU libraries, is not run: package.json allowScripts) and checked against its manifest by
// running one silent window through it. ONNX Runtime is loaded when a model is first used, not when mas starts.

/** A model's file could not be loaded, or does not do what its manifest says: a one-line reason. */
export class ModelRefused extends Error {}

/** What running one window showed: the embedding's length, when the model has one. */
export interface Probed {
  embeddingSize?: number
}

export async function runtime() {
  const ort = (await import('onnxruntime-node')).default
  // what fails reaches us as the error thrown, told in our own words; ONNX Runtime's own log would print it again
  ort.env.logLevel = 'fatal'
  return ort
}

/** Where ONNX Runtime runs a model: this process's CPU threads (its library ships in the npm package), or an
 * NVIDIA GPU through CUDA, on a worker whose machine has CUDA and onnxruntime-node's CUDA files (README, "Workers on
 * other machines"). */
export type ExecutionProvider = 'cpu' | 'cuda'
export const EXECUTION_PROVIDERS: readonly ExecutionProvider[] = ['cpu', 'cuda']

/** A session over the ONNX file at `path` (or its bytes), on `threads` threads of this process, or on the GPU. */
export async function openModel(
  file: string | Uint8Array,
  threads = 1,
  provider: ExecutionProvider = 'cpu',
): Promise<InferenceSession> {
  const ort = await runtime()
  const options: InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionProviders: [provider],
  }
  try {
    return typeof file === 'string'
      ? await ort.InferenceSession.create(file, options)
      : await ort.InferenceSession.create(file, options)
  } catch (e) {
    if (provider !== 'cpu')
      throw new ModelRefused(`ONNX Runtime cannot run models on ${provider} here (${firstLine(e)})`)
    throw new ModelRefused(`the file is not an ONNX model ONNX Runtime can load (${firstLine(e)})`)
  }
}

/** The input tensor of `windows` windows of samples laid one after another, as the manifest lays them out. */
export async function inputTensor(manifest: Manifest, samples: Float32Array, windows: number) {
  const ort = await runtime()
  const n = windowSamples(manifest)
  const dims = manifest.input.layout === 'batch,channel,samples' ? [windows, 1, n] : [windows, n]
  return new ort.Tensor('float32', samples, dims)
}

/** Checks the session against the manifest: its input and outputs are there by name, one window of silence runs,
 * and the scores are one per label. */
export async function probeModel(session: InferenceSession, manifest: Manifest): Promise<Probed> {
  if (!session.inputNames.includes(manifest.input.name)) {
    throw new ModelRefused(
      `the model has no input "${manifest.input.name}" (its inputs: ${session.inputNames.join(', ')})`,
    )
  }
  for (const [kind, name] of Object.entries(manifest.outputs)) {
    if (!session.outputNames.includes(name)) {
      throw new ModelRefused(
        `the model has no output "${name}" (outputs.${kind}; its outputs: ${session.outputNames.join(', ')})`,
      )
    }
  }
  const others = session.inputNames.filter((n) => n !== manifest.input.name)
  if (others.length)
    throw new ModelRefused(
      `the model takes inputs besides "${manifest.input.name}" (${others.join(', ')}), which mas cannot give`,
    )
  let out: InferenceSession.OnnxValueMapType
  try {
    out = await session.run({
      [manifest.input.name]: await inputTensor(manifest, new Float32Array(windowSamples(manifest)), 1),
    })
  } catch (e) {
    throw new ModelRefused(
      `one window of ${windowSamples(manifest)} samples (${manifest.windowSeconds} s at ${manifest.sampleRate} Hz, ${manifest.input.layout}) does not run: ${firstLine(e)}`,
    )
  }
  const probed: Probed = {}
  if (manifest.outputs.scores) {
    const scores = out[manifest.outputs.scores]
    if (scores.size !== manifest.labels.length) {
      throw new ModelRefused(
        `output "${manifest.outputs.scores}" gives ${scores.size} scores a window, but the manifest has ${manifest.labels.length} labels`,
      )
    }
  }
  if (manifest.outputs.embedding) probed.embeddingSize = out[manifest.outputs.embedding].size
  return probed
}

const firstLine = (e: unknown) =>
  String(e instanceof Error ? e.message : e)
    .split('\n')[0]
    .slice(0, 300)
