// At most `limit` pieces of work of one kind at once; the others wait their turn, first come first served.
// For statements that would otherwise take the whole pool of connections (docs/decisions.md, "Lists at scale").

export class Permits {
  #free: number
  readonly #waiting: Array<() => void> = []

  constructor(readonly limit: number) {
    this.#free = limit
  }

  /** `work` once a permit is free, the permit handed on when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--
    else await new Promise<void>((resolve) => this.#waiting.push(resolve))
    try {
      return await work()
    } finally {
      const next = this.#waiting.shift()
      if (next) next()
      else this.#free++
    }
  }

  /** permits taken now */
  get inUse(): number {
    return this.limit - this.#free
  }
}
