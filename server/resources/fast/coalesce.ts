// Concurrent requests that would each run the same statement, made as one (docs/decisions.md §13).
// Requests are grouped by a key that must hold everything their statement depends on (for a single
// create: the caller, the statement's shape, the scope's values). A request whose group has fewer than
// `inFlight` batches running runs at once, alone: an idle server adds no wait. One that arrives while they
// run waits for the first of them to end and then runs with every other request that waited, as one batch.
// A batch's `run` gives each of its requests its own answer or its own error.
//
// With a `holdMs`, a group whose batch has just ended expects its requests' clients back: a client that sends
// one request after another (a script's loop, each of `xargs -P 4`) sends its next as soon as it has its answer.
// The group then runs its next batch when as many wait as the batch that ended had with those that waited
// meanwhile, or when `holdMs` has passed, whichever comes first; so four such clients make batches of four
// instead of one and three in turn. A request of a key that has been idle longer than that runs at once.

/** Runs a batch: one answer (or error) per request, in the requests' order. */
export type RunBatch<M, R> = (members: M[]) => Array<Promise<R>>

interface Waiting<M, R> { member: M; run: RunBatch<M, R>; resolve: (r: R) => void; reject: (e: unknown) => void }

interface Group<M, R> {
  running: number
  waiting: Array<Waiting<M, R>>
  /** requests the group expects to wait before its next batch runs (0: none, run at once) */
  expected: number
  /** ends the wait for `expected` requests */
  hold: ReturnType<typeof setTimeout> | undefined
}

export interface CoalescerOptions {
  /** batches of one group running at once */
  inFlight: number
  /** most requests in one batch */
  maxBatch: number
  /** longest wait, after a batch, for its clients' next requests (0: none) */
  holdMs?: number
}

export class Coalescer<M, R> {
  readonly #groups = new Map<string, Group<M, R>>()
  readonly inFlight: number
  readonly maxBatch: number
  readonly holdMs: number

  constructor({ inFlight, maxBatch, holdMs = 0 }: CoalescerOptions) {
    this.inFlight = inFlight
    this.maxBatch = maxBatch
    this.holdMs = holdMs
  }

  /** The answer to `member`, run alone or in a batch with the other requests of `key`. Every request of a
   * key must be one `run` can make with any other of the key: a batch is run by its first request's `run`. */
  submit(key: string, member: M, run: RunBatch<M, R>): Promise<R> {
    let group = this.#groups.get(key)
    if (!group) this.#groups.set(key, group = { running: 0, waiting: [], expected: 0, hold: undefined })
    return new Promise<R>((resolve, reject) => {
      group.waiting.push({ member, run, resolve, reject })
      if (group.waiting.length >= this.maxBatch) this.#start(key, group)
      else if (group.running < this.inFlight && group.waiting.length >= group.expected) this.#start(key, group)
    })
  }

  #start(key: string, group: Group<M, R>): void {
    clearTimeout(group.hold)
    group.hold = undefined
    group.expected = 0
    const batch = group.waiting.splice(0, this.maxBatch)
    group.running++
    let answers: Array<Promise<R>>
    try {
      answers = batch[0].run(batch.map((w) => w.member))
      if (answers.length !== batch.length) throw new Error(`a batch of ${batch.length} requests gave ${answers.length} answers`)
    } catch (e) {
      answers = batch.map(() => Promise.reject(e))
    }
    answers.forEach((answer, i) => answer.then(batch[i].resolve, batch[i].reject))
    void Promise.allSettled(answers).then(() => this.#ended(key, group, batch.length))
  }

  #ended(key: string, group: Group<M, R>, size: number): void {
    group.running--
    if (this.holdMs > 0 && group.running < this.inFlight) {
      // this batch's clients and those waiting: run when all of them wait, or when the hold ends
      const expected = Math.min(size + group.waiting.length, this.maxBatch)
      if (group.waiting.length < expected) {
        group.expected = expected
        // a request waiting holds its socket open; the hold alone keeps no process from ending
        group.hold ??= setTimeout(() => this.#held(key, group), this.holdMs).unref()
        return
      }
    }
    if (group.waiting.length) this.#start(key, group)
    else if (!group.running) this.#groups.delete(key)
  }

  /** The hold ended before every expected request came: those that came run now. */
  #held(key: string, group: Group<M, R>): void {
    group.hold = undefined
    group.expected = 0
    if (group.waiting.length) {
      if (group.running < this.inFlight) this.#start(key, group)
    } else if (!group.running) this.#groups.delete(key)
  }
}

/** A coalescer for each database and resource, held by the app that batches (server/services.ts): requests of
 * different ones never share a batch. */
export class Coalescers<M, R> {
  readonly #byDb = new WeakMap<object, WeakMap<object, Coalescer<M, R>>>()

  constructor(readonly options: CoalescerOptions) {}

  of(db: object, resource: object): Coalescer<M, R> {
    let byResource = this.#byDb.get(db)
    if (!byResource) this.#byDb.set(db, byResource = new WeakMap())
    let coalescer = byResource.get(resource)
    if (!coalescer) byResource.set(resource, coalescer = new Coalescer(this.options))
    return coalescer
  }
}
