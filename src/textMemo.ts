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
