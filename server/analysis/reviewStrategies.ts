// The orders in which the review queue gives a tag set's tags (docs/decisions.md §19), the first the default. It
// imports nothing: the CLI reads it (mas review open --strategy), and the review page's menu is checked against it.

export const STRATEGIES = ['strata', 'top', 'uncertain', 'random'] as const
export type Strategy = (typeof STRATEGIES)[number]

export const STRATEGY_HELP: Record<Strategy, string> = {
  strata: 'evenly across the ten strength bands, so precision can be estimated at every threshold',
  top: 'strongest first',
  uncertain:
    "strength nearest 0.5 first: where a detector's probability is least sure, so each decision teaches its next run most",
  random: 'any',
}
