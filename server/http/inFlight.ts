// Requests still being answered, so that closing the app can wait for them before it closes the
// database: Fastify's onClose hooks do not wait for them.

export class InFlight {
  private running = 0
  private answering = 0
  private waiting: Array<() => void> = []

  /** requests not yet answered (begun by `request`) */
  get requests(): number {
    return this.answering
  }

  /** One more request running; call the answer (once) when its connection is done with it. */
  request(): () => void {
    this.answering++
    const end = this.begin()
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.answering--
      end()
    }
  }

  /** One more thing running; call the answer (once) when it is over. */
  begin(): () => void {
    this.running++
    let ended = false
    return () => {
      if (ended) return
      ended = true
      if (--this.running === 0) for (const resolve of this.waiting.splice(0)) resolve()
    }
  }

  async run<T>(work: () => Promise<T> | T): Promise<T> {
    const end = this.begin()
    try {
      return await work()
    } finally {
      end()
    }
  }

  /** Resolves when nothing is running, or after `ms` whatever is still running. */
  idle(ms: number): Promise<void> {
    if (this.running === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.waiting.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}
