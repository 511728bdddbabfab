// Failed login attempts per client address and username. Only failures count,
// so scripts that log in often and many users behind one address are never
// slowed; a key that reaches the limit is refused until its oldest failure
// leaves the window. (A general request limiter counts every request, which is
// not what brute-force protection needs.)

export class FailureThrottle {
  private failures = new Map<string, number[]>()

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly maxKeys = 100_000) {}

  /** Seconds until `key` may try again, or 0. */
  retryAfter(key: string, now = Date.now()): number {
    const times = this.recent(key, now)
    if (times.length < this.limit) return 0
    return Math.max(1, Math.ceil((times[0] + this.windowMs - now) / 1000))
  }

  fail(key: string, now = Date.now()): void {
    const times = this.recent(key, now)
    times.push(now)
    this.failures.set(key, times)
    if (this.failures.size > this.maxKeys) {
      const oldest = this.failures.keys().next().value
      if (oldest !== undefined) this.failures.delete(oldest)
    }
  }

  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((t) => t > now - this.windowMs)
    if (times.length === 0) this.failures.delete(key)
    return times
  }
}
