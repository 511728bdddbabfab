import type { Query } from '../http/list.js'
import type { ListRequest } from './core/define.js'
import { badRequest } from '../http/errors.js'
import { parseValue, type Fields } from '../http/fields.js'
import { MD5_MESSAGE, parseMd5 } from '../media/md5.js'
import { startsWithPattern } from '../db/like.js'

// The filters of media file lists (mediaFile/ and library/{Id}/mediaFiles/)
// beyond the equality filters every field has, in django-filter's spelling
// (README, "Media files"): `alias` (exact), `alias__startswith` (a folder of
// an import, e.g. `siteA/`), `realStartTime__gte` / `realStartTime__lte`
// (recordings that started in a time range), and `md5` (the files holding
// exactly those bytes, for import pre-checks).

/** The query parameters, as the OpenAPI document lists them. */
export const mediaFileFilterParams: Fields = {
  alias: { type: 'string', description: 'the media file whose alias is exactly this' },
  alias__startswith: {
    type: 'string',
    description: 'media files whose alias starts with this (case-sensitive), e.g. a folder `siteA/`',
  },
  realStartTime__gte: { type: 'datetime', description: 'media files whose recording started at or after this time' },
  realStartTime__lte: { type: 'datetime', description: 'media files whose recording started at or before this time' },
  md5: { type: 'string', description: 'media files holding exactly the bytes with this md5 checksum' },
}

export function mediaFileListFilter<O>(qb: Query<O>, req: Pick<ListRequest, 'query'>): Query<O> {
  const q = req.query
  const errors: Record<string, string[]> = {}
  if (q.alias !== undefined && q.alias !== '') qb = qb.where('r.alias', '=', q.alias)
  if (q.alias__startswith !== undefined && q.alias__startswith !== '')
    qb = qb.where('r.alias', 'like', startsWithPattern(q.alias__startswith))
  for (const [name, op] of [
    ['realStartTime__gte', '>='],
    ['realStartTime__lte', '<='],
  ] as const) {
    const raw = q[name]
    if (raw === undefined || raw === '') continue
    const parsed = parseValue(mediaFileFilterParams[name], raw)
    if (parsed.ok) qb = qb.where('r.real_start_time', op, parsed.value as string)
    else errors[name] = [parsed.error]
  }
  if (q.md5 !== undefined && q.md5 !== '') {
    const md5 = parseMd5(q.md5)
    if (md5) qb = qb.where('r.md5', '=', md5)
    else errors.md5 = [MD5_MESSAGE]
  }
  if (Object.keys(errors).length) throw badRequest(errors)
  return qb
}
