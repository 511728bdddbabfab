import { sql } from 'kysely'
import { onReviewOfTag, valueColumns } from '../access.js'
import { DECISIONS } from '../analysis/reviews.js'
import { localTimestamp } from '../db/time.js'
import type { Context, Result } from '../http/endpoint.js'
import { badRequest, forbidden, MSG } from '../http/errors.js'
import { parseInput, parseValue, type TableFields } from '../http/fields.js'
import { defineResource, hasErrors, readableRecord, render, resourceEndpoints, validateItems } from './resource.js'
import { tagClasses } from './tagClass.js'
import { tags } from './tag.js'
import { users } from './users.js'

// tagReview/ (extension, docs/decisions.md §19): a reviewer's decision on a tag: yes, no, unsure or skip, and
// for a `no` the class it is instead. One per tag and reviewer: deciding again changes the decision (200) instead
// of adding one (201). Readers of the tag's tag set read decisions; whoever may write it decides, and changes
// or deletes only their own. Deleting a tag deletes its decisions.

const fields: TableFields<'tag_reviews'> = {
  id: { type: 'integer', column: 'id', readOnly: true },
  tag: { type: 'pk', column: 'tag_id', target: () => tags, required: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  decision: { type: 'choice', column: 'decision', choices: DECISIONS, required: true, filter: true },
  tagClass: { type: 'pk', column: 'tag_class_id', target: () => tagClasses, nullable: true, default: null,
    description: 'with `no`: the class the tag is instead' },
  note: { type: 'string', column: 'note', allowBlank: true, default: '', maxLength: 10_000 },
  creationDate: { type: 'datetime', column: 'creation_date', readOnly: true },
}

export const tagReviews = defineResource({
  name: 'tagReview',
  title: 'Tag Review',
  description: 'A reviewer\'s decision on a tag (one per tag and reviewer; deciding again changes it).',
  table: 'tag_reviews',
  fields,
  scope: onReviewOfTag('tag_id', 'user_id'),
  owner: 'user_id',
  stamps: ['creation_date'],
  updatable: ['decision', 'tagClass', 'note'],
  createHandler: (ctx) => decide(ctx),
  listFilter: (qb, req) => {
    const raw = req.query.tagSet
    if (raw === undefined || raw === '') return qb
    const id = parseValue({ type: 'integer', min: 0 }, raw)
    if (!id.ok) throw badRequest({ tagSet: ['Enter a whole number.'] })
    return qb.where((eb) => eb('r.tag_id', 'in', eb.selectFrom('tags as ft').select('ft.id').where('ft.tag_set_id', '=', id.value as number)))
  },
  listFilterParams: { tagSet: { type: 'pk', description: 'decisions on the tags of this tag set' } },
})

type DecisionValues = { tag: number; decision: typeof DECISIONS[number]; tagClass?: number | null; note?: string }

/** The decision made or changed, in one statement with its checks (the tag exists and the caller may decide on
 * it, the class it names is readable); null when a check fails. */
async function decideChecked(ctx: Context, v: DecisionValues) {
  const { caller } = ctx
  const db = ctx.db
  const checked = db.selectNoFrom([
    sql<number>`${v.tag}::integer`.as('tag_id'), sql<number>`${caller.id}::integer`.as('user_id'),
    sql<string>`${v.decision}::varchar`.as('decision'), sql<number | null>`${v.tagClass ?? null}::integer`.as('tag_class_id'),
    sql<string>`${v.note ?? ''}::text`.as('note'), sql<string>`${localTimestamp()}::timestamp`.as('creation_date'),
  ]).where((eb) => eb.and([
    eb.exists(eb.selectFrom('tags as dt').select(sql.lit(1).as('one')).where('dt.id', '=', v.tag)),
    tagReviews.scope.allows(eb, caller, valueColumns({ tag_id: v.tag, user_id: caller.id }), 'write'),
    ...(v.tagClass ? [eb.exists(readableRecord(db, tagClasses, caller, v.tagClass))] : []),
  ]))
  return db.insertInto('tag_reviews').columns(['tag_id', 'user_id', 'decision', 'tag_class_id', 'note', 'creation_date'])
    .expression(checked)
    .onConflict((oc) => oc.columns(['tag_id', 'user_id']).doUpdateSet((eb) => ({
      decision: eb.ref('excluded.decision'), tag_class_id: eb.ref('excluded.tag_class_id'), note: eb.ref('excluded.note'),
    }))).returningAll().returning(sql<boolean>`xmax = 0`.as('created')).executeTakeFirst()
}

/** POST tagReview/: the caller's decision on a tag, made or changed in one statement; when that statement
 * writes nothing, the ordinary checks say why. */
async function decide(ctx: Context): Promise<Result> {
  const body = await ctx.body()
  if (Array.isArray(body)) throw badRequest({ non_field_errors: [MSG.notDict('list')] })
  const parsed = parseInput(fields, body, 'create')
  if (!Object.keys(parsed.errors).length) {
    const row = await decideChecked(ctx, parsed.values as DecisionValues)
    if (row) {
      const { created, ...record } = row
      return { status: created ? 201 : 200, body: (await render(ctx, tagReviews, [record]))[0] }
    }
  }
  const { values, errors, scope } = await validateItems(ctx, tagReviews, [body], 'create', null, ctx.caller.isAdmin ? undefined
    : (valid) => ({ scope: tagReviews.scope, flag: 'write', rows: valid.map((v) => ({ tag_id: v.tag, user_id: ctx.caller.id })) }))
  // a readable tag that the caller may not decide on: 403 before other field errors (docs/decisions.md §6)
  if (scope && !scope.allowed && !errors[0].tag && scope.keys.length) throw forbidden()
  if (hasErrors(errors)) throw badRequest(errors[0])
  // the checks passed now: the one statement refused a moment ago (the tag or a grant was changing)
  const row = await decideChecked(ctx, values[0] as DecisionValues)
  if (!row) throw forbidden()
  const { created, ...record } = row
  return { status: created ? 201 : 200, body: (await render(ctx, tagReviews, [record]))[0] }
}

export const endpoints = () => resourceEndpoints(tagReviews).map((ep) => ep.doc?.actions.POST ? {
  ...ep, doc: { ...ep.doc, success: { POST: [{ status: 201, description: 'Decided' }, { status: 200, description: 'Decided again: the decision changed' }] } },
} : ep)
