import { allReadableWith } from '../../access.js'
import type { TableName } from '../../db/schema.js'
import { planFields, type Fields } from '../../http/fields.js'
import type { CompiledResource, ResourceDeclaration, ResourceDef } from './define.js'
import { bulkPlan } from './insert.js'
import { recordJson } from './recordJson.js'

// A resource is compiled once, when its module defines it (docs/architecture.md, "Why resources are declared as
// data"): its field plans, bulk plan and records' SQL are worked out here, so that no request works them out
// again or looks them up by the declaration.

/** A resource's declaration, its types checked against its table, with what every request uses of it worked out. */
export function defineResource<T extends TableName>(declaration: ResourceDeclaration<T>): ResourceDef<T> {
  if (declaration.listVia && !allReadableWith(declaration.scope, declaration.listVia.readableWith)) {
    throw new Error(
      `${declaration.name}: listVia checks the rule once for ${declaration.listVia.readableWith}, but its access ` +
        'rule does not make every record readable with it (server/access.ts, readableWith)',
    )
  }
  const compiled: CompiledResource = {
    fields: planFields(declaration.fields),
    updatable: planFields(updatableFields(declaration)),
    bulk: bulkPlan(declaration),
    json: recordJson(declaration),
  }
  // `compiled` is left out of a copy of the definition (`{ ...def, embed }`), whose declaration differs: a copy
  // must be defined again (resourceEndpoints refuses one that was not)
  return Object.defineProperty({ ...declaration }, 'compiled', { value: compiled, enumerable: false }) as ResourceDef<T>
}

/** The fields an update may set (`updatable`), else every writable field. */
function updatableFields<T extends TableName>(def: ResourceDeclaration<T>): Fields {
  const updatable = def.updatable
  return updatable ? Object.fromEntries(Object.entries(def.fields).filter(([n]) => updatable.includes(n))) : def.fields
}
