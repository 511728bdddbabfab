// Scoring detections against labelled calls (README, "Evaluating a detector"; docs/decisions.md §25), as
// detection tasks score them: a detection matches a labelled call of its class on its recording when their time
// intersection over union is at least a bound; detections are taken strongest first, each matching the
// unmatched call it overlaps most, so a call is matched once. Precision, recall and F follow from the counts at
// a threshold; average precision from the detections ranked strongest first. The few-shot benchmark
// (bench/fewShot.ts) and the tagSet/{id}/evaluate/ endpoint both score with this.

export interface Span {
  start: number
  end: number
}

/** the default least IoU of a match, the DCASE few-shot task's */
export const DEFAULT_IOU = 0.3

/** An IoU this close below the bound still matches: times written in decimals (1.1 to 1.4 against 1.1 to 2.1)
 * give quotients a rounding short of the decimal bound they are equal to. */
const IOU_SLACK = 1e-9

/** Time intersection over union of two spans; 0 when the union is empty. */
export function iou(a: Span, b: Span): number {
  const inter = Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start))
  const union = a.end - a.start + (b.end - b.start) - inter
  return union > 0 ? inter / union : 0
}

/** The calls of one recording and class, matched by its detections one at a time, strongest first. */
export class CallMatcher {
  private readonly unmatched: Set<number>

  constructor(
    private readonly calls: readonly Span[],
    private readonly minIou: number = DEFAULT_IOU,
  ) {
    this.unmatched = new Set(calls.map((_, i) => i))
  }

  /** The index of the unmatched call with which the detection has the highest IoU (the first of equals), when
   * that IoU is at least the bound, now matched; else -1. */
  match(d: Span): number {
    let best = -1,
      bestIou = 0
    for (const i of this.unmatched) {
      const o = iou(d, this.calls[i])
      if (o > bestIou) {
        best = i
        bestIou = o
      }
    }
    if (best < 0 || bestIou < this.minIou - IOU_SLACK) return -1
    this.unmatched.delete(best)
    return best
  }
}

/** The detections, in the order given (strongest first, ties broken as the caller ranks them), each matched as
 * CallMatcher matches: for each, the index of the call it matched, or -1. */
export function matchInOrder(
  detections: readonly Span[],
  calls: readonly Span[],
  minIou: number = DEFAULT_IOU,
): number[] {
  const matcher = new CallMatcher(calls, minIou)
  return detections.map((d) => matcher.match(d))
}

export interface Ranked {
  id: number
  strength: number
}

/** Strongest first, a strength that is not a number last, ties by id. */
export function strongestFirst(a: Ranked, b: Ranked): number {
  const an = Number.isNaN(a.strength),
    bn = Number.isNaN(b.strength)
  if (an !== bn) return an ? 1 : -1
  if (!an && a.strength !== b.strength) return b.strength > a.strength ? 1 : -1
  return a.id - b.id
}

/** A detection scored: its strength and whether it matched a call. */
export interface Scored extends Ranked {
  matched: boolean
}

export interface CurvePoint {
  /** the detections of at least this strength (null: all, with those whose strength is not a number) */
  threshold: number | null
  precision: number
  recall: number | null
}

export interface Scores {
  gold: number
  detections: number
  tp: number
  fp: number
  fn: number
  /** null without detections */
  precision: number | null
  /** null without calls */
  recall: number | null
  /** null when precision or recall is */
  fMeasure: number | null
  /** over every detection, whatever the threshold; null without calls */
  averagePrecision: number | null
}

/** the most points of a curve: more distinct strengths are thinned to this many, evenly by rank */
export const MAX_CURVE_POINTS = 200

/** Precision, recall and F of counts. */
export function precisionRecall(
  tp: number,
  detections: number,
  gold: number,
): Pick<Scores, 'precision' | 'recall' | 'fMeasure'> {
  const precision = detections ? tp / detections : null
  const recall = gold ? tp / gold : null
  const fMeasure =
    precision === null || recall === null
      ? null
      : precision + recall
        ? (2 * precision * recall) / (precision + recall)
        : 0
  return { precision, recall, fMeasure }
}

/**
 * The scores of detections given in their ranking (strongest first, see strongestFirst): counts, precision, recall
 * and F of the detections of at least `minimumStrength` (all of them when undefined), and average precision over
 * every detection: the sum, over each matched detection, of the precision of the detections ranked up to it,
 * divided by the number of calls. Greedy matching strongest first makes the detections above any threshold a
 * prefix of the ranking with the same matches, so one matching serves every threshold.
 */
export class RankedScores {
  private ranked = 0
  private tp = 0
  private precisionSum = 0
  private keptDetections = 0
  private keptTp = 0
  private last: number | undefined
  /** the ends of runs of one strength kept for the curve, [run, threshold, detections, tp]: every `stride`-th
   * run, and the last (so memory stays bounded however many distinct strengths there are) */
  private points: Array<[number, number | null, number, number]> = []
  private runs = 0
  private stride = 1

  constructor(private readonly minimumStrength?: number) {}

  add(strength: number, matched: boolean): void {
    const sameRun = this.ranked > 0 && (strength === this.last || (Number.isNaN(strength) && Number.isNaN(this.last)))
    this.ranked++
    if (matched) {
      this.tp++
      this.precisionSum += this.tp / this.ranked
    }
    if (this.minimumStrength === undefined || strength >= this.minimumStrength) {
      this.keptDetections++
      if (matched) this.keptTp++
    }
    this.last = strength
    if (!sameRun) this.runs++
    const point: [number, number | null, number, number] = [
      this.runs - 1,
      Number.isNaN(strength) ? null : strength,
      this.ranked,
      this.tp,
    ]
    const newest = this.points[this.points.length - 1]
    // the newest point stays only when it is of this run, or a stride-th run that has ended
    if (newest && (newest[0] === point[0] || newest[0] % this.stride !== 0)) this.points[this.points.length - 1] = point
    else this.points.push(point)
    if (this.points.length > 4 * MAX_CURVE_POINTS) {
      this.stride *= 2
      this.points = this.points.filter((p, i) => p[0] % this.stride === 0 || i === this.points.length - 1)
    }
  }

  scores(gold: number): Scores {
    const { keptDetections: detections, keptTp: tp } = this
    return {
      gold,
      detections,
      tp,
      fp: detections - tp,
      fn: gold - tp,
      ...precisionRecall(tp, detections, gold),
      averagePrecision: gold ? this.precisionSum / gold : null,
    }
  }

  /** The precision-recall curve: a point at each distinct strength (the detections at least that strong),
   * strongest first, thinned to at most MAX_CURVE_POINTS spread evenly over the runs. */
  curve(gold: number): CurvePoint[] {
    const all = this.points
    const points =
      all.length <= MAX_CURVE_POINTS
        ? all
        : Array.from(
            { length: MAX_CURVE_POINTS },
            (_, k) => all[Math.round((k * (all.length - 1)) / (MAX_CURVE_POINTS - 1))],
          )
    return points.map(([, threshold, ranked, tp]) => ({
      threshold,
      precision: tp / ranked,
      recall: gold ? tp / gold : null,
    }))
  }
}

/** The scores of scored detections in any order, ranked by strongestFirst. */
export function scoresOf(
  scored: readonly Scored[],
  gold: number,
  minimumStrength?: number,
): Scores & { curve: CurvePoint[] } {
  const acc = new RankedScores(minimumStrength)
  for (const d of [...scored].sort(strongestFirst)) acc.add(d.strength, d.matched)
  return { ...acc.scores(gold), curve: acc.curve(gold) }
}
