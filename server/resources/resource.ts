// A resource of the API described as data: its table, wire fields and access
// rule. From that one description come its list and detail endpoints, the
// reference checks of every write, and its part of the schema documents.
// Anything a resource does beyond plain records goes into its hooks. The
// machinery lives in core/, one module per job (docs/architecture.md); this
// module is what resource modules use of it.

import type { TableName } from '../db/schema.js'
import type { Endpoint } from '../http/endpoint.js'
import type { ResourceDef } from './core/define.js'
import { resourceEndpoints as coreEndpoints } from './core/endpoints.js'
import { unacceleratedPaths } from './fast/index.js'
import { withPermittedMethods } from './permittedMethods.js'

export { defineResource } from './core/compile.js'
export type { ComputedField, Db, Query, Rec, ResourceDeclaration, ResourceDef } from './core/define.js'
export type { PageRows, PageRun } from './core/define.js'
export { readable, readableRecord, render } from './core/read.js'
export { checkReferences, hasErrors, scopeAllows, validateItems } from './core/checks.js'
export { API, subListEndpoint } from './core/endpoints.js'
export { answerFieldsOf } from './core/answerFields.js'

/** A resource's list and detail endpoints (core/endpoints.ts), the detail telling the caller's permitted methods;
 * made only when the accelerators can take every path the declaration expects them to (`accelerated`), so that a
 * change that would leave a fast path fails at start-up instead of silently running slower. */
export function resourceEndpoints<T extends TableName>(def: ResourceDef<T>): Endpoint[] {
  if (!Object.hasOwn(def, 'compiled'))
    throw new Error(`${def.name}: a copy of a definition; define it (defineResource)`)
  const unaccelerated = unacceleratedPaths(def, def.accelerated ?? [])
  if (unaccelerated.length) throw new Error(`${def.name} is declared accelerated, but: ${unaccelerated.join('; ')}`)
  return withPermittedMethods(def, coreEndpoints(def))
}
