// A clock stopped at one moment, for tests whose answers depend on the time the server reads (a job's lease
// judged against the request's clock, timestamps a request stamps): the same moment on every run.

/** Runs `body` with the clock stopped at one moment (every `new Date()` and `Date.now()` of the process). */
export async function atFixedTime<R>(body: () => Promise<R>): Promise<R> {
  const RealDate = Date
  const moment = new RealDate('2026-11-26T12:00:00Z').getTime()
  class FixedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length) super(...(args as [number]))
      else super(moment)
    }
    static now() {
      return moment
    }
  }
  globalThis.Date = FixedDate as DateConstructor
  try {
    return await body()
  } finally {
    globalThis.Date = RealDate
  }
}
