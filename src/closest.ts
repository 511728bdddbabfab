import { createRequire } from 'node:module'
import type Levenshtein from 'fast-levenshtein'

// fast-levenshtein makes an Intl.Collator when it is loaded (about 10-20 ms): loaded when a distance is first
// measured, not at every start of `mas`, whose refusal of unknown flags (bin/run.js) imports this module
// (docs/decisions.md §22)
let levenshtein: typeof Levenshtein | undefined
const load = () => (levenshtein ??= createRequire(import.meta.url)('fast-levenshtein') as typeof Levenshtein)

/**
 * The candidate nearest to `word` by edit distance (the first of equals), as oclif's plugin-not-found picks a
 * command; none when even the nearest is more than `maxDistance` edits away.
 */
export function closest(word: string, candidates: string[], maxDistance = Infinity): string | undefined {
  const { get } = load()
  const best = candidates
    .map((c) => ({ c, distance: get(word, c, { useCollator: true }) }))
    .sort((a, b) => a.distance - b.distance)[0]
  return best && best.distance <= maxDistance ? best.c : undefined
}
