import { CallerCache } from './auth/callerCache.js'
import type { CopyOut } from './db/copyOut.js'
import { Permits } from './db/permits.js'
import { OpenIndexes } from './analysis/similar/libraryIndex.js'
import { Records } from './resources/core/records.js'
import { accelerators } from './resources/fast/index.js'
import { decisionBatches, type DecisionBatches } from './resources/tagReview.js'
import { EXPORT_STATEMENTS } from './resources/tagSetExport.js'
import { PageBoundaries } from './resources/tagSetPages.js'

// What one app keeps between requests, in one place (docs/architecture.md, "Per-app state"): built by buildApp,
// decorated on the app as `services`, handed to every handler as `ctx.services`, and emptied when the app closes.
// Nothing of it is shared between two apps, so nothing one app remembers can answer another app's caller.

export interface AppServices {
  /** who each recent credential belongs to (auth/callerCache.ts) */
  readonly callers: CallerCache
  /** the records as each caller may read and make them, through the app's accelerators (their compiled statements
   * and batches of creates and details, resources/fast/), which only this holds (resources/core/records.ts) */
  readonly records: Records
  /** the caller's review decisions made together (tagReview.ts) */
  readonly reviewDecisions: DecisionBatches
  /** where deep pages of a tag set's tags begin (tagSetPages.ts) */
  readonly tagSetPages: PageBoundaries
  /** the statements every tag export may run at once (tagSetExport.ts) */
  readonly exportPermits: Permits
  /** the app's database's COPY … TO STDOUT, by which a tag export reads its batches (db/copyOut.ts) */
  readonly copyOut: CopyOut
  /** the libraries' nearest-neighbour indexes opened for search by example (analysis/similar/libraryIndex.ts) */
  readonly similarIndexes: OpenIndexes
}

/** The services of a new app; `accelerated`: the configuration's MAS_ACCELERATORS; `copyOut`: its database's. */
export function appServices(accelerated: boolean, copyOut: CopyOut): AppServices {
  return {
    callers: new CallerCache(),
    records: new Records(accelerators(accelerated)),
    reviewDecisions: decisionBatches(),
    tagSetPages: new PageBoundaries(),
    exportPermits: new Permits(EXPORT_STATEMENTS),
    copyOut,
    similarIndexes: new OpenIndexes(),
  }
}

/** Forgets what the app remembered (its callers, its page boundaries) once it has closed, and closes the indexes it
 * opened (their local copies removed before the app's close ends, so a process exiting next leaves none behind). */
export async function closeServices(services: AppServices): Promise<void> {
  services.callers.forget()
  services.tagSetPages.clear()
  await services.similarIndexes.closeAll()
}
