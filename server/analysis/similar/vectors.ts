// Plain arithmetic on embedding vectors (docs/decisions.md §35): distances are cosine, so vectors are compared at unit length.

/** Each of the `dimensions`-long vectors laid in `flat` scaled to length 1 (a zero vector stays zero), in place. */
export function normalised(flat: Float32Array, dimensions: number): Float32Array {
  for (let at = 0; at < flat.length; at += dimensions) {
    let norm = 0
    for (let j = 0; j < dimensions; j++) norm += flat[at + j] * flat[at + j]
    norm = Math.sqrt(norm)
    if (norm > 0) for (let j = 0; j < dimensions; j++) flat[at + j] /= norm
  }
  return flat
}

/** 1 − cos(a, b) for `a` of unit length and `b` of any; 1 when `b` is zero. */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>, from = 0, dimensions = a.length): number {
  let dot = 0,
    norm = 0
  for (let j = 0; j < dimensions; j++) {
    const v = b[from + j]
    dot += a[j] * v
    norm += v * v
  }
  return norm > 0 ? 1 - dot / Math.sqrt(norm) : 1
}

/** The mean of some vectors, scaled to length 1. */
export function meanDirection(vectors: Float32Array[], dimensions: number): Float32Array {
  const out = new Float32Array(dimensions)
  for (const v of vectors) {
    const unit = normalised(Float32Array.from(v), dimensions)
    for (let j = 0; j < dimensions; j++) out[j] += unit[j]
  }
  return normalised(out, dimensions)
}
