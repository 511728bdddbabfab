import levenshtein from 'fast-levenshtein'

/** The candidate nearest to `word` by edit distance (the first of equals), as oclif's plugin-not-found picks a command. */
export function closest(word: string, candidates: string[]): string | undefined {
  return candidates
    .map((c) => ({ c, distance: levenshtein.get(word, c, { useCollator: true }) }))
    .sort((a, b) => a.distance - b.distance)[0]?.c
}
