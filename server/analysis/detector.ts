import { dot, type BandRange } from './features.js'
import { shapeOf, SHAPE_SIZE } from './embedding.js'
import { likenessIndex, nearestAbove, type LikenessIndex } from './likeness.js'
import { decision, fitLogistic, sigmoid, type LabelledRow, type Logistic } from './logistic.js'

// What SupervisedTagDiscovery learns (docs/decisions.md §20): per tag class, a logistic model over a window's
// whole embedding, fitted to windows over its examples (positives) against counter-examples (windows of the
// example recordings outside every tag, tags of other classes, tags reviewers rejected) and weak negatives
// (windows sampled from the recordings searched, weighted low: almost all of them hold no call), and then
// calibrated on examples it did not see, so that its probability is the tag's `strength`. A window nearer a
// rejected tag than any example of the class is weaker the nearer it is. A detector is plain data, so it can be
// handed to worker threads.

export interface ClassModel {
  tagClass: number
  /** the frequencies its found tags span: those of its examples */
  minFrequency: number
  maxFrequency: number
  /** P(call of this class | embedding and its likeness to the nearest template), standardisation and calibration folded in */
  model: Logistic
  /** shapes of the examples, and of tags reviewers said are not of this class */
  templates: LikenessIndex
  rejected: LikenessIndex
  /** how the probability was calibrated: on examples held out of the fit, or not (a single example) */
  calibration: 'held-out examples' | 'none'
}

export interface Detector {
  range: BandRange
  classes: ClassModel[]
}

/** A window over an example tag: its embedding, its class and bounds, and which example it is of (held out together). */
export interface PositiveWindow {
  embedding: Float32Array
  tagClass: number
  example: number
  minFrequency: number
  maxFrequency: number
}

export interface TrainingWindows {
  positives: PositiveWindow[]
  /** windows known to hold no call of any class sought */
  counter: Float32Array[]
  /** windows of tags reviewers rejected (as a class's counter-examples, and to veto their twins) */
  rejected: Array<{ embedding: Float32Array; tagClass: number }>
  /** windows of the recordings searched, most of them no call */
  weak: Float32Array[]
}

/** The parts of the fit each kind of window weighs in all (docs/decisions.md §20). */
export const WEIGHTS = { positives: 1, counter: 1, rejected: 3, weak: 0.5 }
/** The penalty on the weights of the standardised embedding. */
export const RIDGE = 3
/** The likeness is measured against at most this many windows over the examples (a dot product each, for the windows the scan measures). */
const MAX_TEMPLATES = 128
/**
 * The likeness to the nearest template weighs this much more than any one other feature against the penalty: a
 * prior that a call is first of all like an example, which the rest of the embedding corrects.
 */
const LIKENESS_EMPHASIS = 10
/** Folds of examples held out to calibrate the probability. */
const CALIBRATION_FOLDS = 5

export function trainDetector(range: BandRange, t: TrainingWindows): Detector {
  const classes: ClassModel[] = []
  for (const tagClass of [...new Set(t.positives.map((p) => p.tagClass))]) {
    const own = t.positives.filter((p) => p.tagClass === tagClass)
    const counter = [...t.counter, ...t.positives.filter((p) => p.tagClass !== tagClass).map((p) => p.embedding)]
    // a reviewer's rejection weighs as much as all the counter-examples together: a decision is meant to teach
    const negatives = [
      ...weighted(counter, 0, WEIGHTS.counter),
      ...weighted(
        t.rejected.map((r) => r.embedding),
        0,
        WEIGHTS.rejected,
      ),
      ...weighted(t.weak, 0, WEIGHTS.weak),
    ]
    const templates = spread(own, MAX_TEMPLATES)
    const { model, calibrated } = fitClass(own, negatives, templates)
    classes.push({
      tagClass,
      model,
      calibration: calibrated ? 'held-out examples' : 'none',
      templates: likenessIndex(
        templates.map((p) => shapeOf(p.embedding)),
        SHAPE_SIZE,
      ),
      rejected: likenessIndex(
        t.rejected.filter((r) => r.tagClass === tagClass).map((r) => shapeOf(r.embedding)),
        SHAPE_SIZE,
      ),
      minFrequency: Math.min(...own.map((e) => e.minFrequency)),
      maxFrequency: Math.max(...own.map((e) => e.maxFrequency)),
    })
  }
  return { range, classes }
}

/** At most `n` of `xs`, spread evenly over them. */
export function spread<T>(xs: T[], n: number): T[] {
  return xs.length <= n ? xs : Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)])
}

/** The embedding followed by its likeness to the nearest template (leaving out those of example `skip`). */
function withLikeness(embedding: Float32Array, templates: PositiveWindow[], skip = -1): Float32Array {
  const out = new Float32Array(embedding.length + 1)
  out.set(embedding)
  const shape = shapeOf(embedding)
  let best = 0
  for (const t of templates) if (t.example !== skip) best = Math.max(best, dot(shape, shapeOf(t.embedding)))
  out[embedding.length] = best
  return out
}

function weighted(rows: Float32Array[], y: 0 | 1, total: number): LabelledRow[] {
  return rows.map((x) => ({ x, y, weight: total / rows.length }))
}

/**
 * The model of one class: standardised features, the penalised fit, and a calibration (Platt's) fitted to the
 * decision values of examples held out of the fit, since on the examples it was fitted to it is over-sure.
 */
function fitClass(
  positives: PositiveWindow[],
  rawNegatives: LabelledRow[],
  templates: PositiveWindow[],
): { model: Logistic; calibrated: boolean } {
  const several = new Set(templates.map((t) => t.example)).size > 1
  positives = positives.map((p) => ({
    ...p,
    embedding: withLikeness(p.embedding, templates, several ? p.example : -1),
  }))
  const negatives = rawNegatives.map((n) => ({ ...n, x: withLikeness(n.x as Float32Array, templates) }))
  const all = [...positives.map((p) => p.embedding), ...negatives.map((n) => n.x as Float32Array)]
  const scale = standardisation(all)
  const rowsOf = (ps: PositiveWindow[]): LabelledRow[] => [
    ...weighted(
      ps.map((p) => scale.apply(p.embedding)),
      1,
      WEIGHTS.positives,
    ),
    ...negatives.map((n) => ({ ...n, x: scale.apply(n.x as Float32Array) })),
  ]
  const fitted = fitLogistic(rowsOf(positives), RIDGE)
  const examples = [...new Set(positives.map((p) => p.example))]
  let a = 1,
    c = 0
  const calibrated = examples.length >= 2
  if (calibrated) {
    const folds = Math.min(CALIBRATION_FOLDS, examples.length)
    const heldOut: number[] = [],
      negativeValues: number[] = []
    for (let k = 0; k < folds; k++) {
      const out = new Set(examples.filter((_, i) => i % folds === k))
      const fold = fitLogistic(rowsOf(positives.filter((p) => !out.has(p.example))), RIDGE)
      for (const p of positives) if (out.has(p.example)) heldOut.push(decision(fold, scale.apply(p.embedding)))
      if (k === 0) for (const n of negatives) negativeValues.push(decision(fold, scale.apply(n.x as Float32Array)))
    }
    const negativeTotal = negatives.reduce((sum, n) => sum + n.weight, 0)
    const platt = fitLogistic(
      [
        ...heldOut.map((z) => ({ x: [z], y: 1 as const, weight: 1 / heldOut.length })),
        ...negativeValues.map((z, i) => ({ x: [z], y: 0 as const, weight: negatives[i].weight / negativeTotal })),
      ],
      1e-3,
    )
    a = Math.max(1e-3, platt.weights[0])
    c = platt.bias
  }
  // sigmoid(a·(w·(x − mean)/sd + b) + c), as one linear model over x
  const weights = new Float32Array(fitted.weights.length)
  let bias = a * fitted.bias + c
  for (let j = 0; j < weights.length; j++) {
    weights[j] = (a * fitted.weights[j]) / scale.sd[j]
    bias -= weights[j] * scale.mean[j]
  }
  return { model: { weights, bias }, calibrated }
}

/** Each feature's mean and spread over `rows`, to put them on one scale before the penalised fit. */
function standardisation(rows: Float32Array[]) {
  const d = rows[0].length
  const mean = new Float64Array(d),
    sd = new Float64Array(d)
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / rows.length
  for (const r of rows) for (let j = 0; j < d; j++) sd[j] += (r[j] - mean[j]) ** 2 / rows.length
  for (let j = 0; j < d; j++) sd[j] = Math.max(Math.sqrt(sd[j]), 1e-3)
  sd[d - 1] /= LIKENESS_EMPHASIS
  return {
    mean,
    sd,
    apply: (x: Float32Array) => {
      const out = new Float32Array(d)
      for (let j = 0; j < d; j++) out[j] = (x[j] - mean[j]) / sd[j]
      return out
    },
  }
}

/**
 * The class a window's embedding most likely belongs to, and that probability (the tag's strength). A class whose
 * strength cannot exceed `floor` whatever the window's likeness to its examples (likeness lies in [0, 1]) is not
 * measured further: a window weaker than the floor in every class is answered with strength −1, so a scan that
 * passes the smaller of (just under) its minimum strength and the best strength so far learns all it needs — every
 * window that may be a candidate, and its best — at the cost of one dot product a class for most windows.
 */
export function scoreWindow(
  d: Detector,
  embedding: Float32Array,
  floor = -Infinity,
): { classIndex: number; strength: number } {
  let classIndex = 0,
    strength = -1
  const n = embedding.length
  for (let c = 0; c < d.classes.length; c++) {
    const m = d.classes[c]
    const w = m.model.weights
    let z = m.model.bias
    for (let j = 0; j < n; j++) z += w[j] * embedding[j]
    const likenessWeight = w[n]
    if (sigmoid(z + Math.max(0, likenessWeight)) <= floor) continue
    const shape = shapeOf(embedding)
    // the likeness the window needs for its strength to pass the floor (with a negative weight, none is too low)
    const needed = likenessWeight > 0 && floor > 0 && floor < 1 ? (logit(floor) - z) / likenessWeight : -Infinity
    // a likeness is never below 0: unlike every example is as unlike as it gets (as in training)
    const p = Math.max(0, nearestAbove(m.templates, shape, needed))
    if (p <= needed) continue
    let s = sigmoid(z + likenessWeight * p)
    if (m.rejected.count) {
      // nearer a tag reviewers rejected than any example: the strength falls with how much nearer, to 0 for its twin
      const r = Math.max(0, nearestAbove(m.rejected, shape, p))
      if (r > p) s *= Math.max(0, 1 - (r - p) / Math.max(1e-6, 1 - p))
    }
    if (s > strength) {
      strength = s
      classIndex = c
    }
  }
  return { classIndex, strength }
}

const logit = (p: number) => Math.log(p / (1 - p))
