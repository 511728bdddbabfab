import { seededRandom } from '../server/analysis/random.js'

// Generated embeddings for search by example (docs/decisions.md §35): `clusters` Gaussian clusters in d dimensions
// whose per-dimension variance decays as a real embedding's spectrum does, λ_j = 1 / (1 + j) for dimension j;
// cluster centres drawn from N(0, diag λ), each window its cluster's centre (chosen uniformly) plus
// N(0, 0.7² diag λ), so neighbouring clusters overlap and approximate search is neither trivial nor hopeless.

export interface ClusteredEmbeddings {
  readonly dimensions: number
  readonly clusters: number
  /** Fill `into` (windows × dimensions) with new windows; answers each window's cluster. */
  draw(into: Float32Array): Uint16Array
}

export const WITHIN_CLUSTER = 0.7

export function clusteredEmbeddings(dimensions: number, clusters = 1000, seed = 35): ClusteredEmbeddings {
  const uniform = seededRandom(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform())
  const d = dimensions
  const scale = Float32Array.from({ length: d }, (_, j) => Math.sqrt(1 / (1 + j)))
  const centres = Array.from({ length: clusters }, () =>
    Float32Array.from({ length: d }, (_, j) => normal() * scale[j]),
  )
  return {
    dimensions,
    clusters,
    draw(into) {
      const m = into.length / d
      const of = new Uint16Array(m)
      for (let i = 0; i < m; i++) {
        const c = Math.floor(uniform() * clusters)
        of[i] = c
        for (let j = 0; j < d; j++) into[i * d + j] = centres[c][j] + WITHIN_CLUSTER * normal() * scale[j]
      }
      return of
    },
  }
}
