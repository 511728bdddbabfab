import levenshtein from 'fast-levenshtein'

/**
 * The candidate nearest to `word` by edit distance (the first of equals), as oclif's plugin-not-found picks a
 * command; none when even the nearest is more than `maxDistance` edits away.
 */
export function closest(word: string, candidates: string[], maxDistance = Infinity): string | undefined {
  const best = candidates
    .map((c) => ({ c, distance: levenshtein.get(word, c, { useCollator: true }) }))
    .sort((a, b) => a.distance - b.distance)[0]
  return best && best.distance <= maxDistance ? best.c : undefined
}
