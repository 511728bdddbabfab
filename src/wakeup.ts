// Waiting for some state to change: what waits loops on its condition around `next()`, and whatever
// changes the state calls `wake()`.

export class Wakeup {
  private waiting: Array<() => void> = []

  /** Settles at the next wake(). */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve()
  }
}
