// Work that several jobs a worker runs would each do the same way (the children of one discovery job learning
// from the same examples), done once by the worker and kept while it runs (docs/architecture.md, "Per-app state").

/** Results of work done once per key, the latest `bound` kept; a failed one is forgotten, so the next job tries again. */
export class SharedWork<T> {
  readonly #made = new Map<string, Promise<T>>()

  constructor(private readonly bound: number) {}

  once(key: string, make: () => Promise<T>): Promise<T> {
    let found = this.#made.get(key)
    if (!found) {
      found = make()
      found.catch(() => this.#made.delete(key))
      this.#made.set(key, found)
      while (this.#made.size > this.bound) this.#made.delete(this.#made.keys().next().value!)
    }
    return found
  }
}
