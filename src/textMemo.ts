// What is made of a text, kept for the texts seen last. Most of a tag set's tags share one provenance, whose JSON an
// export would otherwise quote (a CSV cell) or wrap (an AOEF note) again for every tag: a fifth of a CSV export's
// time at 10^6 tags (BENCHMARKS.md).

/** `make`, remembering what it made of the last `most` texts (all forgotten when more come). */
export function textMemo(make: (text: string) => string, most = 1000): (text: string) => string {
  const made = new Map<string, string>()
  let lastText: string | undefined
  let lastMade = ''
  return (text) => {
    if (text === lastText) return lastMade
    let result = made.get(text)
    if (result === undefined) {
      if (made.size >= most) made.clear()
      made.set(text, (result = make(text)))
    }
    lastText = text
    lastMade = result
    return result
  }
}

/** `make` of a JSON value's text, remembered for the value last given, by identity (the records of an NDJSON
 * stream share a repeated last field's value, src/ndjson.ts), and by text as textMemo does, so that a value shared
 * by many records is neither written as JSON nor made again for each. */
export function jsonTextMemo(make: (text: string) => string, most = 1000): (value: unknown) => string {
  const byText = textMemo(make, most)
  let lastValue: unknown
  let lastMade = ''
  return (value) => {
    if (value !== lastValue || value === undefined) {
      lastValue = value
      lastMade = byText(JSON.stringify(value) ?? 'null')
    }
    return lastMade
  }
}
