// A coreapi document decoded and its links looked up the way python coreapi's
// client does (CoreJSONCodec, then Client.action(document, keys, params)):
// `_type`/`_meta` keys are metadata, a leading `__` of a key is unescaped, a
// dict with `_type: "link"` is a Link (its url joined to the document's url),
// any other dict an Object; a lookup walks the keys through Documents and
// Objects and must end on a Link; the parameters must name only the link's
// fields and give every required one.

export interface CoreField {
  name: string
  required: boolean
  location: string
}
export interface CoreLink {
  kind: 'link'
  url: string
  action: string
  encoding: string
  fields: CoreField[]
}
export interface CoreObject {
  kind: 'object'
  content: Map<string, CoreNode>
}
export type CoreNode = CoreLink | CoreObject | unknown

export function decodeDocument(data: unknown, baseUrl = ''): CoreNode {
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const d = data as Record<string, any>
    if (d._type === 'document') return { kind: 'object', content: contentOf(d, d._meta?.url ?? baseUrl) }
    if (d._type === 'link') {
      return {
        kind: 'link',
        url: joinUrl(baseUrl, d.url ?? ''),
        action: d.action ?? 'get',
        encoding: d.encoding ?? '',
        fields: (d.fields ?? []).map((f: any) => ({
          name: f.name,
          required: !!f.required,
          location: f.location ?? '',
        })),
      }
    }
    return { kind: 'object', content: contentOf(d, baseUrl) }
  }
  return data
}

/** urljoin for the absolute paths and full URLs documents hold (braces of templates kept as they are). */
function joinUrl(base: string, url: string): string {
  if (/^https?:\/\//.test(url)) return url
  return url.startsWith('/') ? `${base.match(/^https?:\/\/[^/]+/)?.[0] ?? ''}${url}` : url
}

/** The path of a link's url (its template, e.g. /api/v0/tag/{id}/). */
export const linkPath = (link: CoreLink) => link.url.replace(/^https?:\/\/[^/]+/, '')

function contentOf(d: Record<string, unknown>, baseUrl: string): Map<string, CoreNode> {
  const content = new Map<string, CoreNode>()
  for (const [key, value] of Object.entries(d)) {
    if (key === '_type' || key === '_meta') continue
    content.set(key.startsWith('__') ? key.slice(1) : key, decodeDocument(value, baseUrl))
  }
  return content
}

const isObject = (n: CoreNode): n is CoreObject => !!n && typeof n === 'object' && (n as CoreObject).kind === 'object'
const isLink = (n: CoreNode): n is CoreLink => !!n && typeof n === 'object' && (n as CoreLink).kind === 'link'

/** Client.action's lookup and parameter check: the link, or the LinkLookupError/ParameterError it would raise. */
export function lookupLink(doc: CoreNode, keys: string[], params: Record<string, unknown>): CoreLink | string {
  let node = doc
  for (const [i, key] of keys.entries()) {
    if (!isObject(node) || !node.content.has(key))
      return `Index ${JSON.stringify(keys)} did not reference a link. Key ${JSON.stringify(key)} was not found (at ${i}).`
    node = node.content.get(key)
  }
  if (!isLink(node)) return `Index ${JSON.stringify(keys)} did not reference a link.`
  const names = new Set(node.fields.map((f) => f.name))
  const unknown = Object.keys(params).filter((p) => !names.has(p))
  if (unknown.length) return `Unknown parameter: ${unknown.join(', ')}`
  const missing = node.fields.filter((f) => f.required && !(f.name in params)).map((f) => f.name)
  if (missing.length) return `This parameter is required: ${missing.join(', ')}`
  return node
}

/** The request Client.action would send for a link: path fields filled in, query fields in the query. */
export function linkRequest(
  link: CoreLink,
  params: Record<string, unknown>,
): { method: string; url: string; body?: Record<string, unknown> } {
  let path = linkPath(link)
  const query = new URLSearchParams()
  const body: Record<string, unknown> = {}
  for (const f of link.fields) {
    if (!(f.name in params)) continue
    const v = params[f.name]
    if (f.location === 'path') path = path.replace(`{${f.name}}`, encodeURIComponent(String(v)))
    else if (f.location === 'query') query.set(f.name, String(v))
    else body[f.name] = v
  }
  const search = query.toString()
  return {
    method: link.action.toUpperCase(),
    url: `${path}${search ? `?${search}` : ''}`,
    ...(Object.keys(body).length ? { body } : {}),
  }
}
