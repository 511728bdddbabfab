import type { Flag } from '../access.js'
import type { TableName } from '../db/schema.js'
import type { Context, Endpoint, Method } from '../http/endpoint.js'
import type { ResourceDef } from './core/define.js'
import { API } from './core/endpoints.js'

// What the caller may do with one record, told on OPTIONS of its detail path to a client that asks
// (docs/decisions.md §22): `mas ... delete` asks "are you sure?" only of a caller the server would let delete.

/** The resource's endpoints, its detail path telling the methods the caller may use on the record. */
export function withPermittedMethods<T extends TableName>(def: ResourceDef<T>, endpoints: Endpoint[]): Endpoint[] {
  const detail = `${API}/${def.name}/:id/`
  return endpoints.map((ep) =>
    ep.path === detail ? { ...ep, permitted: (ctx: Context) => permittedOn(ctx, def, ep) } : ep,
  )
}

/** The methods of `ep` whose flag the caller holds on record `ctx.params.id` (none when it may not read it). */
async function permittedOn<T extends TableName>(ctx: Context, def: ResourceDef<T>, ep: Endpoint): Promise<Method[]> {
  const needs: Array<[Method, Flag]> = [
    ['GET', 'read'],
    ['PUT', def.update || 'write'],
    ['PATCH', def.update || 'write'],
    ['DELETE', def.destroy || 'write'],
  ]
  const offered = needs.filter(([method]) => ep.methods[method])
  try {
    const { can } = await ctx.services.records.fetch(ctx, def, ctx.params.id, [
      ...new Set(offered.map(([, flag]) => flag)),
    ])
    return offered.filter(([, flag]) => can(flag)).map(([method]) => method)
  } catch {
    return [] // missing, or not readable: nothing may be done with it
  }
}
