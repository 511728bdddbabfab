import { withRoom } from '../server/typedArrays.js'
import type { TagInput } from './tagFormats.js'

// The tags of a set as the server's duplicate check sees them (docs/decisions.md §9: the same recording, class,
// times and band), for `mas tag import --dry-run` to say which rows an import would skip. Six numbers a tag in one
// typed array (48 bytes a tag: 10^6 tags in under 50 MB, where a set of text keys took three times that), ordered
// once, then looked up by binary search: exact, as the server compares the stored numbers.

export const IDENTITY = ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency'] as const
export type TagIdentity = Pick<TagInput, (typeof IDENTITY)[number]>

const WIDTH = IDENTITY.length

export class TagIdentities {
  private values = new Float64Array(WIDTH * 1024)
  private count = 0
  private order: Uint32Array | undefined

  get size(): number {
    return this.count
  }

  add(t: TagIdentity): void {
    this.values = withRoom(this.values, WIDTH * (this.count + 1))
    const at = WIDTH * this.count++
    for (let i = 0; i < WIDTH; i++) this.values[at + i] = t[IDENTITY[i]]
    this.order = undefined
  }

  /** Is a tag with `t`'s identity among those added? */
  has(t: TagIdentity): boolean {
    const order = (this.order ??= this.ordered())
    let low = 0
    let high = order.length - 1
    while (low <= high) {
      const mid = (low + high) >>> 1
      const c = this.compare(order[mid], t)
      if (c === 0) return true
      if (c < 0) low = mid + 1
      else high = mid - 1
    }
    return false
  }

  private ordered(): Uint32Array {
    const order = Uint32Array.from({ length: this.count }, (_, i) => i)
    const v = this.values
    return order.sort((a, b) => {
      for (let i = 0; i < WIDTH; i++) {
        const d = v[WIDTH * a + i] - v[WIDTH * b + i]
        if (d !== 0) return d
      }
      return 0
    })
  }

  /** The order of tag `k` against `t`'s identity. */
  private compare(k: number, t: TagIdentity): number {
    for (let i = 0; i < WIDTH; i++) {
      const d = this.values[WIDTH * k + i] - t[IDENTITY[i]]
      if (d !== 0) return d
    }
    return 0
  }
}
