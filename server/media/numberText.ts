// Numbers as the API and its messages print them.

/** A float as Python prints it ('60.0', '2.5'), as the original service stored durations. */
export function pythonFloat(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n)
}

/** Seconds as messages print them: to the millisecond, as the command line's tables do (26.999433106575964 → '26.999'). */
export function secondsText(n: number): string {
  return pythonFloat(Math.round(n * 1000) / 1000)
}
