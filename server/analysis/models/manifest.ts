// What a model's manifest says about its ONNX file (docs/decisions.md, "Models"): the audio it takes (sample rate,
// window length), its input tensor and how the window is laid out in it, its outputs by name (class scores, an
// embedding, or both), the labels of its classes, optional per-class thresholds, and its version. Checked here
// for its own consistency; server/analysis/models/onnx.ts checks it against the file.

/** How one window's samples sit in the input tensor: [batch, samples], or [batch, 1, samples]. */
export type InputLayout = 'batch,samples' | 'batch,channel,samples'
export const INPUT_LAYOUTS: readonly InputLayout[] = ['batch,samples', 'batch,channel,samples']

export interface Manifest {
  /** Hz: the rate the model's windows are sampled at (recordings are resampled to it) */
  sampleRate: number
  /** seconds a window lasts */
  windowSeconds: number
  input: { name: string; layout: InputLayout }
  /** output tensors by name: class scores (one per label, for each window) and/or an embedding */
  outputs: { scores?: string; embedding?: string }
  /** the class of each score, in order (e.g. BirdNET's `Genus species_Common Name`) */
  labels: string[]
  /** a score at or above which a class is detected, by label (else the job's minimumStrength) */
  thresholds?: Record<string, number>
  /** the model's own version, kept in each tag's provenance */
  version: string
}

const MAX_LABELS = 100_000
export const MIN_RATE = 1_000
export const MAX_RATE = 500_000
/** the longest window: 60 s (a model of longer windows is refused, its windows would not fit in memory per batch) */
export const MAX_WINDOW_SECONDS = 60

/** The manifest, or the one-line reason it is not one. */
export function parseManifest(raw: unknown): { manifest: Manifest } | { error: string } {
  const fail = (error: string) => ({ error })
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail('the manifest must be a JSON object')
  const m = raw as Record<string, unknown>
  const rate = m.sampleRate
  if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < MIN_RATE || rate > MAX_RATE) {
    return fail(`sampleRate must be a whole number of Hz from ${MIN_RATE} to ${MAX_RATE}`)
  }
  const window = m.windowSeconds
  if (typeof window !== 'number' || !(window > 0) || window > MAX_WINDOW_SECONDS) {
    return fail(`windowSeconds must be a number of seconds above 0 and at most ${MAX_WINDOW_SECONDS}`)
  }
  if (!Number.isInteger(Math.round(window * rate * 1e6) / 1e6))
    return fail(`windowSeconds × sampleRate (${window * rate}) must be a whole number of samples`)
  const input = m.input as Record<string, unknown> | undefined
  if (!input || typeof input !== 'object' || typeof input.name !== 'string' || input.name === '')
    return fail('input.name must name the input tensor')
  const layout = input.layout ?? 'batch,samples'
  if (!INPUT_LAYOUTS.includes(layout as InputLayout))
    return fail(`input.layout must be one of ${INPUT_LAYOUTS.join(', ')}`)
  const outputs = m.outputs as Record<string, unknown> | undefined
  if (!outputs || typeof outputs !== 'object') return fail('outputs must name the scores and/or the embedding output')
  const named = (key: 'scores' | 'embedding') => (outputs[key] === undefined ? undefined : outputs[key])
  for (const key of ['scores', 'embedding'] as const) {
    const v = named(key)
    if (v !== undefined && (typeof v !== 'string' || v === '')) return fail(`outputs.${key} must name an output tensor`)
  }
  if (named('scores') === undefined && named('embedding') === undefined)
    return fail('outputs must name the scores and/or the embedding output')
  const labels = m.labels ?? []
  if (
    !Array.isArray(labels) ||
    labels.some((l) => typeof l !== 'string' || l.trim() === '') ||
    labels.length > MAX_LABELS
  ) {
    return fail(`labels must be a list of at most ${MAX_LABELS} names`)
  }
  if (named('scores') !== undefined && labels.length === 0) return fail('labels must name the class of each score')
  if (new Set(labels).size !== labels.length)
    return fail(`labels must differ: ${labels.find((l, i) => labels.indexOf(l) !== i)} is there twice`)
  const thresholds = m.thresholds ?? {}
  if (typeof thresholds !== 'object' || thresholds === null || Array.isArray(thresholds))
    return fail('thresholds must map labels to scores')
  for (const [label, t] of Object.entries(thresholds)) {
    if (!labels.includes(label)) return fail(`thresholds name ${JSON.stringify(label)}, which is not one of the labels`)
    if (typeof t !== 'number' || !Number.isFinite(t))
      return fail(`the threshold of ${JSON.stringify(label)} must be a number`)
  }
  const version = m.version ?? ''
  if (typeof version !== 'string') return fail('version must be a text')
  return {
    manifest: {
      sampleRate: rate,
      windowSeconds: window,
      input: { name: input.name, layout: layout as InputLayout },
      outputs: {
        ...(named('scores') ? { scores: named('scores') as string } : {}),
        ...(named('embedding') ? { embedding: named('embedding') as string } : {}),
      },
      labels: labels as string[],
      ...(Object.keys(thresholds).length ? { thresholds: thresholds as Record<string, number> } : {}),
      version,
    },
  }
}

/** Samples in one window of the model. */
export const windowSamples = (m: Manifest): number => Math.round(m.windowSeconds * m.sampleRate)
