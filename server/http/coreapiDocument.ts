import type { Endpoint, EndpointDoc, Method } from './endpoint.js'
import { labelOf, type FieldDef, type Fields } from './fields.js'

// The coreapi document DRF clients read at /api/ (./schema.ts serves it), from the endpoint table: the links the
// caller may use, each with its fields as a form.

export type Json = Record<string, unknown>

const PAGE_FIELD = {
  name: 'page',
  location: 'query',
  schema: { _type: 'integer', title: 'Page', description: 'A page number within the paginated result set.' },
}

export const pathOf = (ep: Endpoint) => ep.path.replace(/:(\w+)/g, '{$1}')
export const hasId = (ep: Endpoint) => ep.path.includes(':id')
export const WRITE_METHODS: Method[] = ['POST', 'PUT', 'PATCH']

function coreType(f: FieldDef): Json {
  switch (f.type) {
    case 'integer':
    case 'pk':
      return { _type: 'integer' }
    case 'float':
      return { _type: 'number' }
    case 'boolean':
      return { _type: 'boolean' }
    case 'choice':
      return { _type: 'enum', enum: [...(f.choices ?? [])] }
    case 'list':
      return { _type: 'array' }
    case 'object':
      return { _type: 'object' }
    default:
      return { _type: 'string' }
  }
}

function formFields(fields: Fields, method: Method): Json[] {
  return Object.entries(fields)
    .filter(([, f]) => !f.readOnly || f.inForms)
    .map(([name, f]) => ({
      name,
      // a file part (inForms) the upload needs is required as the original's document says
      ...(f.required && (!f.readOnly || (f.inForms && method === 'POST')) && method !== 'PATCH'
        ? { required: true }
        : {}),
      location: 'form',
      schema: { ...coreType(f), title: labelOf(name, f), description: f.description ?? '' },
    }))
}

function coreLink(ep: Endpoint, doc: EndpointDoc, method: Method): Json {
  const fields: Json[] = []
  if (hasId(ep)) {
    fields.push({
      name: 'id',
      required: true,
      location: 'path',
      schema: { _type: 'integer', title: 'ID', description: 'A unique integer value identifying this record.' },
    })
  }
  if (doc.list && method === 'GET') fields.push(PAGE_FIELD)
  const body = doc.fields?.[method]
  if (body && WRITE_METHODS.includes(method)) fields.push(...formFields(body, method))
  return {
    _type: 'link',
    url: pathOf(ep),
    action: method.toLowerCase(),
    ...(WRITE_METHODS.includes(method) ? { encoding: 'application/json' } : {}),
    ...(doc.description || ep.description ? { description: doc.description ?? ep.description } : {}),
    fields,
  }
}

/** Put `value` at `keys` in `tree`; a link and a group meeting at one key keep both, the link as `key_0`. */
function place(tree: Json, keys: string[], value: Json) {
  let node = tree
  for (let i = 0; i < keys.length - 1; i++) {
    const k = keys[i]
    let next = node[k] as Json | undefined
    if (next?._type === 'link') {
      node[`${k}_0`] = next
      next = undefined
    }
    if (next === undefined) node[k] = next = {}
    node = next
  }
  const last = keys[keys.length - 1]
  const there = node[last] as Json | undefined
  if (there && there._type !== 'link' && value._type === 'link') node[`${last}_0`] = value
  else node[last] = value
}

/** The coreapi document as `caller` sees it: like the original's, without the links only site admins may
 * use (user/, the project list) unless the caller is one. The links of the original keep its names;
 * extensions have keys of their own (library > importMediaFiles, library > checkMediaFiles, ...). */
export function coreapiDocument(endpoints: Endpoint[], origin: string, caller: { isAdmin: boolean }): Json {
  const doc: Json = { _type: 'document', _meta: { url: `${origin}/api/`, title: 'mas API' } }
  const api: Json = {}
  for (const ep of endpoints) {
    if (!ep.doc || ep.doc.openapiOnly) continue
    for (const [method, action] of Object.entries(ep.doc.actions) as Array<[Method, string]>) {
      if (!caller.isAdmin && ep.doc.adminOnly?.includes(method)) continue
      const link = coreLink(ep, ep.doc, method)
      if (ep.path.startsWith('/api/v0/')) place(api, [...ep.doc.keys, action], link)
      else place(doc, [...ep.doc.keys, action], link)
    }
  }
  doc.api = { v0: api }
  return doc
}

// ---- OpenAPI 3.1 ----

// Timestamps are server-local times without a zone (design: wire conventions), so not `format: date-time`,
// which requires an offset: records show whole seconds; input may have fractional seconds and a space.
