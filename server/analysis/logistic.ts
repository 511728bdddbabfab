// Weighted logistic regression with an L2 penalty, the classifier of discovery (docs/decisions.md §20):
// a few hundred features, a few thousand rows each with its own weight (weak negatives count less). The
// npm packages for it fit unweighted rows by plain gradient descent, so the fit is written here: the
// penalised log-loss is minimised by L-BFGS, which needs only the gradient and converges in tens of steps.

export interface Logistic {
  weights: Float32Array
  bias: number
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))

/** The decision value w·x + b. */
export function decision(m: Logistic, x: ArrayLike<number>): number {
  let z = m.bias
  const w = m.weights
  for (let i = 0; i < w.length; i++) z += w[i] * x[i]
  return z
}

export function probability(m: Logistic, x: ArrayLike<number>): number {
  return sigmoid(decision(m, x))
}

export interface LabelledRow {
  x: ArrayLike<number>
  y: 0 | 1
  weight: number
}

/**
 * P(y = 1 | x) = sigmoid(w·x + b) minimising Σ weight·logloss + ridge/2·|w|² (the bias is not penalised).
 * Rows' weights are used as given: balance the classes by choosing them.
 */
export function fitLogistic(rows: LabelledRow[], ridge: number, iterations = 200): Logistic {
  const d = rows.length ? rows[0].x.length : 0
  const n = d + 1 // the last parameter is the bias
  const loss = (p: Float64Array, grad: Float64Array): number => {
    grad.fill(0)
    let f = 0
    for (const r of rows) {
      let z = p[d]
      for (let j = 0; j < d; j++) z += p[j] * r.x[j]
      // log(1 + e^z) − y z, computed without overflow
      f += r.weight * ((z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z))) - r.y * z)
      const g = r.weight * (sigmoid(z) - r.y)
      for (let j = 0; j < d; j++) grad[j] += g * r.x[j]
      grad[d] += g
    }
    for (let j = 0; j < d; j++) {
      f += 0.5 * ridge * p[j] * p[j]
      grad[j] += ridge * p[j]
    }
    return f
  }
  const p = minimise(loss, new Float64Array(n), iterations)
  return { weights: Float32Array.from(p.subarray(0, d)), bias: p[d] }
}

/** The minimum of a smooth convex function from `start`, by L-BFGS with a backtracking (Armijo) line search. */
export function minimise(
  f: (p: Float64Array, grad: Float64Array) => number,
  start: Float64Array,
  iterations: number,
  memory = 10,
): Float64Array {
  const n = start.length
  let x = Float64Array.from(start)
  let g = new Float64Array(n)
  let fx = f(x, g)
  const ss: Float64Array[] = [],
    ys: Float64Array[] = [],
    rhos: number[] = []
  const dir = new Float64Array(n),
    alpha = new Array<number>(memory)
  const xNew = new Float64Array(n),
    gNew = new Float64Array(n)
  for (let it = 0; it < iterations; it++) {
    // the two-loop recursion: dir = −H g
    dir.set(g)
    for (let i = ss.length - 1; i >= 0; i--) {
      alpha[i] = rhos[i] * dotOf(ss[i], dir)
      for (let j = 0; j < n; j++) dir[j] -= alpha[i] * ys[i][j]
    }
    const gamma = ss.length
      ? dotOf(ss[ss.length - 1], ys[ys.length - 1]) / dotOf(ys[ys.length - 1], ys[ys.length - 1])
      : 1 / Math.max(1, Math.sqrt(dotOf(g, g)))
    for (let j = 0; j < n; j++) dir[j] *= gamma
    for (let i = 0; i < ss.length; i++) {
      const beta = rhos[i] * dotOf(ys[i], dir)
      for (let j = 0; j < n; j++) dir[j] += ss[i][j] * (alpha[i] - beta)
    }
    for (let j = 0; j < n; j++) dir[j] = -dir[j]
    let slope = dotOf(g, dir)
    if (slope >= 0) {
      // not a descent direction: start again from the gradient
      for (let j = 0; j < n; j++) dir[j] = -g[j]
      slope = -dotOf(g, g)
      ss.length = 0
      ys.length = 0
      rhos.length = 0
    }
    if (-slope < 1e-12) break
    let step = 1,
      fNew = Infinity
    for (let tries = 0; tries < 40; tries++, step /= 2) {
      for (let j = 0; j < n; j++) xNew[j] = x[j] + step * dir[j]
      fNew = f(xNew, gNew)
      if (fNew <= fx + 1e-4 * step * slope) break
    }
    if (!(fNew <= fx)) break
    const s = new Float64Array(n),
      y = new Float64Array(n)
    for (let j = 0; j < n; j++) {
      s[j] = xNew[j] - x[j]
      y[j] = gNew[j] - g[j]
    }
    const sy = dotOf(s, y)
    if (sy > 1e-12) {
      ss.push(s)
      ys.push(y)
      rhos.push(1 / sy)
      if (ss.length > memory) {
        ss.shift()
        ys.shift()
        rhos.shift()
      }
    }
    const improved = fx - fNew
    x = Float64Array.from(xNew)
    g = Float64Array.from(gNew)
    fx = fNew
    if (improved < 1e-10 * Math.max(1, Math.abs(fx))) break
  }
  return x
}

function dotOf(a: Float64Array, b: Float64Array): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}
