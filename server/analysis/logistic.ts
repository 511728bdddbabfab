// Logistic regression on a handful of features, fitted by Newton's method with a small ridge penalty and
// the two classes weighted equally (docs/decisions.md §20: a few thousand points of two or three features,
// where a general library's gradient descent would add a dependency and tuning for no gain).

export interface Logistic { weights: number[]; bias: number }

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))

export function probability(m: Logistic, x: ArrayLike<number>): number {
  let z = m.bias
  for (let i = 0; i < m.weights.length; i++) z += m.weights[i] * x[i]
  return sigmoid(z)
}

/** Fit P(positive | x) to `positives` and `negatives` (rows of equal length). */
export function fitLogistic(positives: number[][], negatives: number[][], ridge = 0.01): Logistic {
  const rows = [...positives, ...negatives]
  const d = rows[0].length + 1 // the last weight is the bias
  const y = rows.map((_, i) => (i < positives.length ? 1 : 0))
  const weightOf = rows.map((_, i) => (i < positives.length ? 0.5 / positives.length : 0.5 / negatives.length))
  const w = new Array<number>(d).fill(0)
  const xOf = (r: number[]) => [...r, 1]
  for (let round = 0; round < 50; round++) {
    const grad = new Array<number>(d).fill(0)
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0))
    for (let i = 0; i < rows.length; i++) {
      const x = xOf(rows[i])
      let z = 0
      for (let j = 0; j < d; j++) z += w[j] * x[j]
      const p = sigmoid(z)
      for (let j = 0; j < d; j++) {
        grad[j] += weightOf[i] * (p - y[i]) * x[j]
        for (let k = 0; k < d; k++) hess[j][k] += weightOf[i] * p * (1 - p) * x[j] * x[k]
      }
    }
    for (let j = 0; j < d - 1; j++) { grad[j] += ridge * w[j]; hess[j][j] += ridge }
    hess[d - 1][d - 1] += 1e-9
    const step = solve(hess, grad)
    let size = 0
    for (let j = 0; j < d; j++) { w[j] -= step[j]; size = Math.max(size, Math.abs(step[j])) }
    if (size < 1e-7) break
  }
  return { weights: w.slice(0, d - 1), bias: w[d - 1] }
}

/** x with a x = b, by Gaussian elimination with partial pivoting (a is small and positive definite). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length
  const m = a.map((row, i) => [...row, b[i]])
  for (let c = 0; c < n; c++) {
    let pivot = c
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r
    ;[m[c], m[pivot]] = [m[pivot], m[c]]
    if (Math.abs(m[c][c]) < 1e-12) continue
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = m[r][c] / m[c][c]
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k]
    }
  }
  return m.map((row, i) => (Math.abs(row[i]) < 1e-12 ? 0 : row[n] / row[i]))
}
