// A window's likeness to a set of shapes (docs/decisions.md §20): the largest correlation of its shape with any
// of them, all unit vectors of the same length. The scan needs it only when it could lift a window's strength
// above a floor, and for most windows it cannot: so the shapes come with an orthonormal basis of their span,
// built greedily (each next direction the shape least explained so far, a pivoted Gram–Schmidt), and a window is
// projected onto it a few directions at a time. Within the basis the correlation is exact; outside it, Cauchy–
// Schwarz bounds what is left by the product of the two residual lengths. As soon as no shape's bound reaches the
// floor the window is given up; shapes whose bound still does are measured in full. The answer is that of
// measuring every shape, at a fraction of the cost.

/** Directions projected onto before the bounds are checked again. */
const STAGE = 8
/** At most this many directions; the shapes still in reach after them are measured in full. */
const MAX_DIRECTIONS = 32
/** Slack for rounding: shapes are unit vectors of float32 values. */
const SLACK = 1e-5

export interface LikenessIndex {
  /** the shapes, one after another (`count` × `size`) */
  shapes: Float64Array
  count: number
  size: number
  /** orthonormal directions, one after another (`directions` × `size`) */
  basis: Float64Array
  directions: number
  /** each shape's coordinates in the basis (`count` × `directions`) */
  coordinates: Float64Array
  /** each shape's length outside the first `STAGE × (j + 1)` directions (`count` × stages) */
  residuals: Float64Array
}

export function likenessIndex(shapes: Float32Array[], size: number): LikenessIndex {
  const count = shapes.length
  const flat = new Float64Array(count * size)
  shapes.forEach((s, i) => flat.set(s.subarray(0, size), i * size))
  // pivoted Gram–Schmidt over the shapes' residuals
  const residual = shapes.map((s) => Float64Array.from(s.subarray(0, size)))
  const basis: Float64Array[] = []
  while (basis.length < Math.min(MAX_DIRECTIONS, count)) {
    let pick = -1,
      longest = 1e-3
    residual.forEach((r, i) => {
      const l = norm(r)
      if (l > longest) {
        longest = l
        pick = i
      }
    })
    if (pick < 0) break
    const direction = residual[pick].map((x) => x / longest)
    for (const r of residual) {
      const c = dot64(r, direction)
      for (let k = 0; k < size; k++) r[k] -= c * direction[k]
    }
    basis.push(direction)
  }
  const directions = basis.length
  const stages = Math.ceil(directions / STAGE)
  const coordinates = new Float64Array(count * directions)
  const residuals = new Float64Array(count * stages)
  for (let i = 0; i < count; i++) {
    const s = shapes[i]
    let captured = 0
    for (let d = 0; d < directions; d++) {
      const c = dotAt(basis[d], 0, s, size)
      coordinates[i * directions + d] = c
      captured += c * c
      if ((d + 1) % STAGE === 0 || d === directions - 1)
        residuals[i * stages + Math.floor(d / STAGE)] = Math.sqrt(Math.max(0, 1 - captured))
    }
  }
  const flatBasis = new Float64Array(directions * size)
  basis.forEach((b, d) => flatBasis.set(b, d * size))
  return { shapes: flat, count, size, basis: flatBasis, directions, coordinates, residuals }
}

// scratch for nearestAbove, which runs to its end without yielding
const projected = new Float64Array(MAX_DIRECTIONS)
let partial = new Float64Array(0)
let bound = new Float64Array(0)

/**
 * The largest correlation of `shape` (a unit vector, or all zero) with the index's shapes when it exceeds
 * `floor`; otherwise some number at most `floor` (0 when there are no shapes, or only flat ones).
 */
export function nearestAbove(index: LikenessIndex, shape: Float32Array, floor = -Infinity): number {
  const { count, size, basis, directions, coordinates, residuals, shapes } = index
  if (directions === 0) return 0 // no shapes, or all of them flat
  if (partial.length < count) {
    partial = new Float64Array(count)
    bound = new Float64Array(count)
  }
  partial.fill(0, 0, count)
  const stages = Math.ceil(directions / STAGE)
  let captured = 0
  for (let stage = 0; stage < stages; stage++) {
    const from = stage * STAGE,
      to = Math.min(directions, from + STAGE)
    for (let d = from; d < to; d++) {
      const c = dotAt(basis, d * size, shape, size)
      projected[d] = c
      captured += c * c
    }
    const outside = Math.sqrt(Math.max(0, 1 - captured))
    let top = -Infinity
    for (let i = 0; i < count; i++) {
      let p = partial[i]
      for (let d = from; d < to; d++) p += projected[d] * coordinates[i * directions + d]
      partial[i] = p
      const b = p + outside * residuals[i * stages + stage] + SLACK
      bound[i] = b
      if (b > top) top = b
    }
    if (top <= floor) return top
  }
  let best = -Infinity
  for (let i = 0; i < count; i++) {
    if (bound[i] <= floor || bound[i] <= best) continue
    const c = dotAt(shapes, i * size, shape, size)
    if (c > best) best = c
  }
  return best
}

/** rows[at … at + n) · v[0 … n), four sums at a time: a row of the basis or of the shapes against a window's shape. */
function dotAt(rows: Float64Array, at: number, v: Float32Array, n: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0,
    k = 0
  for (; k + 3 < n; k += 4) {
    s0 += rows[at + k] * v[k]
    s1 += rows[at + k + 1] * v[k + 1]
    s2 += rows[at + k + 2] * v[k + 2]
    s3 += rows[at + k + 3] * v[k + 3]
  }
  for (; k < n; k++) s0 += rows[at + k] * v[k]
  return s0 + s1 + s2 + s3
}

function dot64(a: Float64Array, b: Float64Array): number {
  let s = 0
  for (let k = 0; k < a.length; k++) s += a[k] * b[k]
  return s
}

const norm = (v: Float64Array) => Math.sqrt(dot64(v, v))
