import { allReadableWith } from '../../access.js'
import type { TableName } from '../../db/schema.js'
import type { Context, Endpoint, Handler, Method } from '../../http/endpoint.js'
import { forbidden, notFound } from '../../http/errors.js'
import type { Fields } from '../../http/fields.js'
import { JsonText } from '../../http/jsonText.js'
import type { Query } from '../../http/list.js'
import { anyTable, type PageRows, type PageRun, type ResourceDef } from './define.js'
import { listOf } from './list.js'
import type { CallerBase } from './listStatements.js'
import { parseId, recordRequest, render } from './read.js'
import { createRecords, deleteRecord, updateRecord } from './write.js'

// The list and detail endpoints generated from a declaration, and sub-lists (a parent record's
// records of another resource).

/** The fields an update's documents describe: those it may change, and the read-only ones (which the
 * documents leave out, or list as ignored). */
function documentedFields<T extends TableName>(def: ResourceDef<T>): Fields {
  return def.updatable
    ? Object.fromEntries(Object.entries(def.fields).filter(([n, f]) => f.readOnly || def.updatable!.includes(n)))
    : def.fields
}

export const API = '/api/v0'

export function resourceEndpoints<T extends TableName>(def: ResourceDef<T>): Endpoint[] {
  const listMethods: Endpoint['methods'] = {}
  if (def.list !== false) {
    listMethods.GET = async (ctx) => {
      if (def.list === 'admin' && !ctx.caller.isAdmin) throw forbidden()
      if (def.beforeList) await def.beforeList(ctx)
      const via = def.listVia?.list(ctx.db, ctx.caller, ctx.query, ctx.services)
      const base: CallerBase = (db, caller) => ctx.services.records.readable({ db, caller }, def)
      return via ? listOf(ctx, def, via.base, { ...via.options, filtered: true }) : listOf(ctx, def, base)
    }
  }
  const write = (handler: Handler): Handler => {
    const around = def.aroundWrite
    return around ? (ctx) => around(ctx, () => handler(ctx)) : handler
  }
  if (def.create !== false) listMethods.POST = write(def.createHandler ?? ((ctx) => createRecords(ctx, def)))

  const detailMethods: Endpoint['methods'] = {
    GET: async (ctx) => {
      const id = parseId(ctx.params.id)
      if (id === null) throw notFound()
      const written = ctx.services.records.detail(ctx, def, id, recordRequest(ctx))
      if (written) {
        const text = await written
        if (text === undefined) throw notFound()
        return { body: new JsonText(text) }
      }
      const { row } = await ctx.services.records.fetch(ctx, def, id, ['read'])
      return { body: (await render(ctx, def, [row]))[0] }
    },
  }
  if (def.update !== false) {
    detailMethods.PUT = write((ctx) => updateRecord(ctx, def, false))
    detailMethods.PATCH = write((ctx) => updateRecord(ctx, def, true))
  }
  if (def.destroy !== false) detailMethods.DELETE = write((ctx) => deleteRecord(ctx, def))

  const record = def.fields
  const listActions: Partial<Record<Method, string>> = {}
  if (listMethods.GET) listActions.GET = 'list'
  if (listMethods.POST) listActions.POST = 'create'
  const detailActions: Partial<Record<Method, string>> = { GET: 'read' }
  if (detailMethods.PUT) Object.assign(detailActions, { PUT: 'update', PATCH: 'partial_update' })
  if (detailMethods.DELETE) detailActions.DELETE = 'delete'

  if (def.siteAdminsOnly) {
    guardAll(listMethods)
    guardAll(detailMethods)
  }
  const listAdminOnly: Method[] = def.siteAdminsOnly
    ? (Object.keys(listActions) as Method[])
    : def.list === 'admin'
      ? ['GET']
      : []
  const detailAdminOnly: Method[] = def.siteAdminsOnly ? (Object.keys(detailActions) as Method[]) : []

  return [
    {
      path: `${API}/${def.name}/`,
      name: `${def.title} List`,
      description: def.description,
      methods: listMethods,
      options: async () => (listMethods.POST ? { POST: def.fields } : undefined),
      doc: {
        keys: [def.name],
        actions: listActions,
        fields: { POST: def.fields },
        record,
        list: true,
        filters: def.listFilterParams,
        description: def.description,
        adminOnly: listAdminOnly,
        bulk: !!def.bulk,
        skipsDuplicates: !!def.identity,
      },
    },
    {
      path: `${API}/${def.name}/:id/`,
      name: `${def.title} Instance`,
      description: def.description,
      methods: detailMethods,
      options: async (ctx) => {
        if (!detailMethods.PUT) return undefined
        try {
          const { can } = await ctx.services.records.fetch(ctx, def, ctx.params.id, [def.update || 'write'])
          return can(def.update || 'write') ? { PUT: def.fields } : undefined
        } catch {
          return undefined
        }
      },
      doc: {
        keys: [def.name],
        actions: detailActions,
        record,
        description: def.description,
        adminOnly: detailAdminOnly,
        fields: { PUT: documentedFields(def), PATCH: documentedFields(def) },
      },
    },
  ]
}

function guardAll(methods: Endpoint['methods']) {
  for (const [m, h] of Object.entries(methods) as Array<[Method, NonNullable<Endpoint['methods'][Method]>]>) {
    methods[m] = async (ctx) => {
      if (!ctx.caller.isAdmin) throw forbidden()
      return h(ctx)
    }
  }
}

/** A read-only list of `child` records belonging to a readable `parent` record, e.g. tagSet/{id}/tags/. */
export function subListEndpoint<P extends TableName, C extends TableName>(opts: {
  parent: ResourceDef<P>
  child: ResourceDef<C>
  segment: string
  name: string
  /** the child's column holding the parent's id, or a condition limiting the child query to the parent's records */
  where: string | ((qb: Query<{}>, parentId: number) => Query<{}>)
  /** the number of children when the request has no filters (see ListOptions.count) */
  count?: (ctx: Context, parentId: number) => Promise<number>
  /** a page of children in the default order without filters (see ListOptions.page) */
  page?: (
    ctx: Context,
    parentId: number,
    ordered: Query,
    limit: number,
    offset: number,
    run: PageRun,
  ) => Promise<PageRows>
}): Endpoint {
  return {
    path: `${API}/${opts.parent.name}/:id/${opts.segment}/`,
    name: opts.name,
    methods: {
      GET: async (ctx) => {
        // an id that is no id is answered as the parent's detail answers it (fetchRecord: 404)
        const id = parseId(ctx.params.id)
        if (id === null) throw notFound()
        const { where, count, page } = opts
        // the children of a readable parent, when its rule says they are all readable with it (access.ts)
        const base =
          typeof where === 'string' && allReadableWith(opts.child.scope, where)
            ? anyTable(ctx.db).selectFrom(`${opts.child.table} as r`)
            : ctx.services.records.readable(ctx, opts.child)
        const ofParent = typeof where === 'string' ? base.where(`r.${where}`, '=', id) : where(base, id)
        return listOf(
          ctx,
          opts.child,
          ofParent,
          {
            ...(count ? { count: () => count(ctx, id) } : {}),
            ...(page
              ? {
                  page: (ordered: Query, limit: number, offset: number, run: PageRun) =>
                    page(ctx, id, ordered, limit, offset, run),
                }
              : {}),
          },
          {
            readable: (qb) => qb.where((eb) => eb.exists(ctx.services.records.readableRecord(ctx, opts.parent, id))),
            fetch: () => ctx.services.records.fetch(ctx, opts.parent, id, ['read']),
          },
        )
      },
    },
    doc: {
      keys: [opts.parent.name],
      actions: { GET: opts.segment },
      record: opts.child.fields,
      list: true,
      filters: opts.child.listFilterParams,
    },
  }
}
