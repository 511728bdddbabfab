import type { TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { badRequest } from '../../http/errors.js'
import { render } from './read.js'
import { computedNames, type Rec, type ResourceDef } from './define.js'

// `?fields=` on a create of a bulk resource (docs/decisions.md §9): the answer's records hold only the fields named.
// An import that keeps only the ids asks for `fields=id`, and the records are then neither read back nor rendered.

/** The fields `?fields=` names, in the record's order, or null when it is not given; 400 naming an unknown one. */
export function answerFieldsOf<T extends TableName>(ctx: Context, def: ResourceDef<T>): readonly string[] | null {
  const given = ctx.query.fields
  if (given === undefined) return null
  if (!given.trim()) throw badRequest({ fields: ['This field may not be blank.'] })
  const known = ['id', ...Object.keys(def.fields).filter((n) => n !== 'id'), ...computedNames(def)]
  const asked = given.split(',').map((n) => n.trim())
  const unknown = asked.filter((n) => !known.includes(n))
  if (unknown.length)
    throw badRequest({
      fields: [
        `${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of ${def.title} records.`,
      ],
    })
  return known.filter((n) => asked.includes(n))
}

/** Whether the answer holds the records' ids alone: nothing of them is read back. */
export const idsOnly = (fields: readonly string[] | null): boolean => fields?.length === 1 && fields[0] === 'id'

/** The records of `rows` as the answer shows them: whole, or only `fields`. */
export async function answerRecords<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  rows: Rec<T>[],
  fields: readonly string[] | null,
): Promise<Record<string, unknown>[]> {
  if (idsOnly(fields)) return rows.map((r) => ({ id: r.id }))
  const records = await render(ctx, def, rows)
  return fields ? records.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]]))) : records
}
