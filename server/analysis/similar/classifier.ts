import type { Db } from '../../db/schema.js'
import { RIDGE, WEIGHTS } from '../detector.js'
import { decision, fitLogistic, sigmoid, type LabelledRow, type Logistic } from '../logistic.js'
import type { ReviewedTag } from '../reviews.js'
import { strongestApart, type Candidate } from '../scan.js'
import {
  eachRowVectors,
  embeddingRows,
  embeddingRowsOfFile,
  windowSpan,
  windowsCovering,
  windowVectors,
  type EmbeddingRow,
  type WindowRef,
} from './store.js'

// A classifier learnt from reviewers' decisions on stored embeddings (docs/decisions.md §35): per class of the
// tags decided `yes`, the logistic regression of discovery (logistic.ts, its penalty and its weights of each kind
// of row, detector.ts) over the standardised stored vectors of the windows on those tags, against the windows on
// tags of other classes, on tags decided `no` and a sample of the library's stored windows (weak negatives: most
// hold no call). Then every stored window of the library is scored. Only stored vectors are read: no audio.

/** weak negatives sampled from the library's stored windows */
export const WEAK_NEGATIVES = 2000

export interface ClassClassifier {
  tagClass: number
  model: Logistic
  minFrequency: number
  maxFrequency: number
  positives: number
}

interface Located {
  row: EmbeddingRow
  index: number
}

/** The stored windows on a decided tag (those at least half within it, else the one overlapping it most). */
async function windowsOn(
  db: Db,
  kind: string,
  tag: ReviewedTag,
  rowsOfFile: Map<number, EmbeddingRow | null>,
): Promise<Located[]> {
  if (!rowsOfFile.has(tag.mediaFile))
    rowsOfFile.set(tag.mediaFile, (await embeddingRowsOfFile(db, tag.mediaFile, kind))[0] ?? null)
  const row = rowsOfFile.get(tag.mediaFile)
  return row ? windowsCovering(row, tag.startTime, tag.endTime).map((index) => ({ row, index })) : []
}

async function vectorsOf(db: Db, windows: Located[]): Promise<Float32Array[]> {
  if (!windows.length) return []
  return windowVectors(
    db,
    windows.map((w): WindowRef => ({ id: w.row.id, index: w.index })),
    windows[0].row.dimensions,
  )
}

/** `n` windows drawn evenly at random from every stored window of the rows (without those `avoid` says). */
function sampleWindows(
  rows: EmbeddingRow[],
  n: number,
  random: () => number,
  avoid: (w: Located) => boolean,
): Located[] {
  const total = rows.reduce((s, r) => s + r.windows, 0)
  const out: Located[] = []
  const seen = new Set<string>()
  for (let tries = 0; out.length < Math.min(n, total) && tries < 4 * n; tries++) {
    let at = Math.floor(random() * total)
    const row = rows.find((r) => (at < r.windows ? true : ((at -= r.windows), false)))!
    const w = { row, index: at }
    const key = `${row.id}/${at}`
    if (seen.has(key) || avoid(w)) continue
    seen.add(key)
    out.push(w)
  }
  return out
}

const overlaps = (w: Located, t: ReviewedTag) => {
  if (w.row.mediaFile !== t.mediaFile) return false
  const s = windowSpan(w.row, w.index)
  return Math.min(s.end, t.endTime) > Math.max(s.start, t.startTime)
}

/** The classifiers learnt from the decided tags, one per class with a `yes` tag on a stored window. */
export async function learnFromDecisions(
  db: Db,
  library: number,
  kind: string,
  decided: ReviewedTag[],
  random: () => number,
): Promise<ClassClassifier[]> {
  const rowsOfFile = new Map<number, EmbeddingRow | null>()
  const on = new Map<number, Float32Array[]>()
  for (const t of decided) on.set(t.tag, await vectorsOf(db, await windowsOn(db, kind, t, rowsOfFile)))
  const yes = decided.filter((t) => t.consensus === 'yes')
  const no = decided.filter((t) => t.consensus === 'no')
  const weak = await vectorsOf(
    db,
    sampleWindows(await embeddingRows(db, library, kind), WEAK_NEGATIVES, random, (w) =>
      yes.some((t) => overlaps(w, t)),
    ),
  )
  const out: ClassClassifier[] = []
  for (const tagClass of [...new Set(yes.map((t) => t.tagClass))]) {
    const own = yes.filter((t) => t.tagClass === tagClass)
    const positives = own.flatMap((t) => on.get(t.tag) ?? [])
    if (!positives.length) continue
    const counter = yes.filter((t) => t.tagClass !== tagClass).flatMap((t) => on.get(t.tag) ?? [])
    const rejected = no.flatMap((t) => on.get(t.tag) ?? [])
    const rows: Array<{ x: Float32Array; y: 0 | 1; weight: number }> = [
      ...weighted(positives, 1, WEIGHTS.positives),
      ...weighted(counter, 0, WEIGHTS.counter),
      ...weighted(rejected, 0, WEIGHTS.rejected),
      ...weighted(weak, 0, WEIGHTS.weak),
    ]
    out.push({
      tagClass,
      model: standardisedFit(rows),
      positives: positives.length,
      minFrequency: Math.min(...own.map((t) => t.minFrequency)),
      maxFrequency: Math.max(...own.map((t) => t.maxFrequency)),
    })
  }
  return out
}

function weighted(xs: Float32Array[], y: 0 | 1, total: number) {
  return xs.map((x) => ({ x, y, weight: total / xs.length }))
}

/** The penalised fit on standardised features, folded back into one linear model over the raw vector. */
function standardisedFit(rows: Array<{ x: Float32Array; y: 0 | 1; weight: number }>): Logistic {
  const d = rows[0].x.length
  const mean = new Float64Array(d),
    sd = new Float64Array(d)
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r.x[j] / rows.length
  for (const r of rows) for (let j = 0; j < d; j++) sd[j] += (r.x[j] - mean[j]) ** 2 / rows.length
  for (let j = 0; j < d; j++) sd[j] = Math.max(Math.sqrt(sd[j]), 1e-3)
  const scaled: LabelledRow[] = rows.map((r) => ({
    y: r.y,
    weight: r.weight,
    x: Float32Array.from(r.x, (v, j) => (v - mean[j]) / sd[j]),
  }))
  const fitted = fitLogistic(scaled, RIDGE)
  // the penalty shrinks the decision values of a few rows towards the prior; a one-feature logistic model (Platt's)
  // of the rows' decision values against their labels, with the same weights, puts the strength back on the scale
  // of a probability (it orders the windows as before)
  const platt = fitLogistic(
    scaled.map((r) => ({ x: [decision(fitted, r.x)], y: r.y, weight: r.weight })),
    1e-3,
  )
  const a = Math.max(1e-3, platt.weights[0])
  const weights = new Float32Array(d)
  let bias = a * fitted.bias + platt.bias
  for (let j = 0; j < d; j++) {
    weights[j] = (a * fitted.weights[j]) / sd[j]
    bias -= weights[j] * mean[j]
  }
  return { weights, bias }
}

export interface Found {
  mediaFile: number
  start: number
  end: number
  tagClass: number
  strength: number
}

/**
 * Every stored window of the rows scored by each classifier: at most `keep` windows of at least `minimumStrength`,
 * strongest first, windows of one file not overlapping each other, none overlapping a decided tag.
 */
export async function scoreStored(
  db: Db,
  rows: EmbeddingRow[],
  classes: ClassClassifier[],
  keep: number,
  minimumStrength: number,
  decided: ReviewedTag[],
  signal?: AbortSignal,
): Promise<{ found: Found[]; scored: number }> {
  let all: Found[] = []
  let scored = 0
  for await (const { row, vectors } of eachRowVectors(db, rows)) {
    signal?.throwIfAborted()
    const onFile = decided.filter((t) => t.mediaFile === row.mediaFile)
    const candidates: Candidate[] = []
    for (let i = 0; i < row.windows; i++) {
      scored++
      for (let c = 0; c < classes.length; c++) {
        const m = classes[c].model
        if (m.weights.length !== row.dimensions) continue
        let z = m.bias
        for (let j = 0, at = i * row.dimensions; j < row.dimensions; j++, at++) z += m.weights[j] * vectors[at]
        const strength = sigmoid(z)
        if (strength < minimumStrength) continue
        const span = windowSpan(row, i)
        if (onFile.some((t) => Math.min(span.end, t.endTime) > Math.max(span.start, t.startTime))) continue
        candidates.push({ start: span.start, end: span.end, classIndex: c, strength })
      }
    }
    for (const c of strongestApart(candidates, keep))
      all.push({
        mediaFile: row.mediaFile,
        start: c.start,
        end: c.end,
        tagClass: classes[c.classIndex].tagClass,
        strength: c.strength,
      })
    if (all.length > 4 * keep) all = strongest(all, keep)
  }
  return { found: strongest(all, keep), scored }
}

const strongest = (xs: Found[], n: number) =>
  [...xs].sort((a, b) => b.strength - a.strength || a.mediaFile - b.mediaFile || a.start - b.start).slice(0, n)
