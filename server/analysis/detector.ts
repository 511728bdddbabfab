import { BANDS, dot, SLICES, unitShape, type BandRange } from './features.js'
import { fitLogistic, probability, sigmoid, type Logistic } from './logistic.js'

// What SupervisedTagDiscovery learns (docs/decisions.md §20): per tag class,
// the shapes of its example tags (templates), and a logistic model that turns
// a window's correlation with the nearest template (p) and with the nearest
// counter-example (q: a stretch of the example recordings outside every tag,
// a tag of another class, or a tag a reviewer rejected) into a probability;
// a window nearer a rejected tag than any example of the class is weaker the
// nearer it is. A detector is plain data, so it can be handed to worker threads.

export interface ClassModel {
  tagClass: number
  templates: Float32Array[]
  /** the frequencies its found tags span: those of its examples */
  minFrequency: number
  maxFrequency: number
  model: Logistic
  /** shapes of tags reviewers said are not of this class */
  rejected: Float32Array[]
  /** what the model was fitted against besides the examples: counter-examples (with near misses), or near misses alone */
  calibration: 'counter-examples' | 'near misses'
}

export interface Detector {
  range: BandRange
  classes: ClassModel[]
  /** counter-examples of every class */
  negatives: Float32Array[]
}

/** An example as the detector learns it: its shape and class, and where it came from (so it is left out of its own comparison). */
export interface LabelledShape { shape: Float32Array; tagClass: number; minFrequency: number; maxFrequency: number }

/** With fewer counter-examples than this, the model uses the correlation with the nearest template alone. */
export const MIN_NEGATIVES = 5

export function trainDetector(range: BandRange, examples: LabelledShape[], negatives: Float32Array[], rejected: LabelledShape[] = []): Detector {
  const byClass = new Map<number, LabelledShape[]>()
  for (const e of examples) {
    if (!byClass.has(e.tagClass)) byClass.set(e.tagClass, [])
    byClass.get(e.tagClass)!.push(e)
  }
  const classes: ClassModel[] = []
  for (const [tagClass, own] of byClass) {
    const templates = own.map((e) => e.shape)
    const rejectedHere = rejected.filter((r) => r.tagClass === tagClass).map((r) => r.shape)
    const counter = [...negatives, ...rejected.map((r) => r.shape), ...examples.filter((e) => e.tagClass !== tagClass).map((e) => e.shape)]
    // each row: [correlation with the nearest template, with the nearest counter-example], leaving the row's own shape out
    const row = (shape: Float32Array, skip: Float32Array | null): number[] =>
      [nearest(shape, templates, templates.length > 1 ? skip : null), nearest(shape, counter, skip)]
    const positives = templates.map((t) => row(t, t))
    const negativeRows = counter.map((n) => row(n, n))
    // near misses: each example moved up and down in pitch and played backwards is not a call of its class
    for (const t of templates) for (const m of nearMisses(t)) negativeRows.push([nearest(m, templates, templates.length > 1 ? t : null), nearest(m, counter, null)])
    const useCounter = counter.length >= MIN_NEGATIVES
    const fitted = fitLogistic(positives.map((r) => (useCounter ? r : [r[0]])), negativeRows.map((r) => (useCounter ? r : [r[0]])))
    const model = useCounter ? fitted : { weights: [fitted.weights[0], 0], bias: fitted.bias }
    classes.push({
      tagClass, templates, model, rejected: rejectedHere, calibration: useCounter ? 'counter-examples' : 'near misses',
      minFrequency: Math.min(...own.map((e) => e.minFrequency)),
      maxFrequency: Math.max(...own.map((e) => e.maxFrequency)),
    })
  }
  return { range, classes, negatives: [...negatives, ...rejected.map((r) => r.shape)] }
}

/** Band shifts of a near miss (of BANDS mel bands between the range's ends: 3 bands is about a sixth of the range). */
const PITCH_SHIFTS = [-6, -3, 3, 6]

/** A shape moved in pitch by each of PITCH_SHIFTS bands, and reversed in time. */
export function nearMisses(shape: Float32Array): Float32Array[] {
  let low = Infinity
  for (const v of shape) low = Math.min(low, v)
  const shifted = PITCH_SHIFTS.map((k) => {
    const out = new Float32Array(shape.length)
    for (let s = 0; s < SLICES; s++) {
      for (let b = 0; b < BANDS; b++) {
        const from = b - k
        out[s * BANDS + b] = from >= 0 && from < BANDS ? shape[s * BANDS + from] : low
      }
    }
    return unitShape(out)
  })
  const reversed = new Float32Array(shape.length)
  for (let s = 0; s < SLICES; s++) reversed.set(shape.subarray((SLICES - 1 - s) * BANDS, (SLICES - s) * BANDS), s * BANDS)
  return [...shifted, unitShape(reversed)]
}

/** The largest correlation of `shape` with any of `shapes` (but `skip`), 0 when there is none. */
function nearest(shape: Float32Array, shapes: Float32Array[], skip: Float32Array | null): number {
  let best = 0
  for (const s of shapes) if (s !== skip) best = Math.max(best, dot(shape, s))
  return best
}

/** The class a window's shape most likely belongs to, and that probability (the tag's strength). */
export function scoreShape(d: Detector, shape: Float32Array): { classIndex: number; strength: number } {
  let classIndex = 0, strength = -1
  let q = -1 // computed once, for the first class that needs it
  for (let c = 0; c < d.classes.length; c++) {
    const m = d.classes[c]
    const p = nearest(shape, m.templates, null)
    // nearer a tag reviewers rejected than any example: the strength falls with how much nearer, to 0 for its twin
    const r = m.rejected.length ? nearest(shape, m.rejected, null) : -1
    const veto = r > p ? Math.max(0, 1 - (r - p) / Math.max(1e-6, 1 - p)) : 1
    let s: number
    if (m.model.weights[1] === 0) s = sigmoid(m.model.bias + m.model.weights[0] * p)
    else {
      if (q < 0) q = nearest(shape, d.negatives, null)
      // other classes' templates are counter-examples of this one
      let qc = q
      for (let o = 0; o < d.classes.length; o++) if (o !== c) qc = Math.max(qc, nearest(shape, d.classes[o].templates, null))
      s = probability(m.model, [p, qc])
    }
    s *= veto
    if (s > strength) { strength = s; classIndex = c }
  }
  return { classIndex, strength }
}
