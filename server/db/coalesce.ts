// Concurrent requests that would each run the same statement, made as one (docs/decisions.md §13).
// Requests are grouped by a key that must hold everything their statement depends on (for a single
// create: the caller, the statement's shape, the scope's values). A request whose group has fewer than
// `inFlight` batches running runs at once, alone: an idle server adds no wait. One that arrives while they
// run waits for the first of them to end and then runs with every other request that waited, as one batch.
// A batch's `run` gives each of its requests its own answer or its own error.

/** Runs a batch: one answer (or error) per request, in the requests' order. */
export type RunBatch<M, R> = (members: M[]) => Array<Promise<R>>

interface Waiting<M, R> {
  member: M
  run: RunBatch<M, R>
  resolve: (r: R) => void
  reject: (e: unknown) => void
}

interface Group<M, R> {
  running: number
  waiting: Array<Waiting<M, R>>
}

export class Coalescer<M, R> {
  readonly #groups = new Map<string, Group<M, R>>()

  /** `inFlight`: batches of one group running at once; `maxBatch`: most requests in one batch. */
  constructor(
    readonly inFlight: number,
    readonly maxBatch: number,
  ) {}

  /** The answer to `member`, run alone or in a batch with the other requests of `key`. Every request of a
   * key must be one `run` can make with any other of the key: a batch is run by its first request's `run`. */
  submit(key: string, member: M, run: RunBatch<M, R>): Promise<R> {
    let group = this.#groups.get(key)
    if (!group) this.#groups.set(key, (group = { running: 0, waiting: [] }))
    return new Promise<R>((resolve, reject) => {
      group.waiting.push({ member, run, resolve, reject })
      if (group.running < this.inFlight || group.waiting.length >= this.maxBatch) this.#start(key, group)
    })
  }

  #start(key: string, group: Group<M, R>): void {
    const batch = group.waiting.splice(0, this.maxBatch)
    group.running++
    let answers: Array<Promise<R>>
    try {
      answers = batch[0].run(batch.map((w) => w.member))
      if (answers.length !== batch.length)
        throw new Error(`a batch of ${batch.length} requests gave ${answers.length} answers`)
    } catch (e) {
      answers = batch.map(() => Promise.reject(e))
    }
    for (const [i, answer] of answers.entries()) answer.then(batch[i].resolve, batch[i].reject)
    void Promise.allSettled(answers).then(() => {
      group.running--
      if (group.waiting.length) this.#start(key, group)
      else if (!group.running) this.#groups.delete(key)
    })
  }
}

/** A coalescer for each database and resource, held by the app that batches (server/services.ts): requests of
 * different ones never share a batch. */
export class Coalescers<M, R> {
  readonly #byDb = new WeakMap<object, WeakMap<object, Coalescer<M, R>>>()

  constructor(
    readonly inFlight: number,
    readonly maxBatch: number,
  ) {}

  of(db: object, resource: object): Coalescer<M, R> {
    let byResource = this.#byDb.get(db)
    if (!byResource) this.#byDb.set(db, (byResource = new WeakMap()))
    let coalescer = byResource.get(resource)
    if (!coalescer) byResource.set(resource, (coalescer = new Coalescer(this.inFlight, this.maxBatch)))
    return coalescer
  }
}
