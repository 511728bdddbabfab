import type { SelectQueryBuilder } from 'kysely'
import type { Context } from '../http/endpoint.js'
import { fieldError } from '../http/errors.js'

// md5 checksums as clients send them, and the `?md5=` filter of media file
// lists (mediaFile/ and library/{Id}/mediaFiles/), used to skip files a
// library already holds before uploading them.

export const MD5_MESSAGE = 'Enter a valid md5 checksum: 32 hexadecimal digits.'

/** A checksum in its stored form (lower-case hex), or null when `v` is not one. */
export function parseMd5(v: unknown): string | null {
  return typeof v === 'string' && /^\s*[0-9a-fA-F]{32}\s*$/.test(v) ? v.trim().toLowerCase() : null
}

type Query = SelectQueryBuilder<any, any, any>

/** listFilter for media file lists: `?md5=<hex>` keeps the files holding exactly those bytes. */
export function md5ListFilter(qb: Query, ctx: Context): Query {
  const raw = ctx.query.md5
  if (raw === undefined || raw === '') return qb
  const md5 = parseMd5(raw)
  if (!md5) throw fieldError('md5', MD5_MESSAGE)
  return qb.where('r.md5', '=', md5)
}
