import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely'
import type { DB } from './db/schema.js'

// Who may read, write, launch jobs on, or administer what (docs/decisions.md §6).
// Every rule is an SQL condition, so the same rule filters lists, answers a
// detail request in the query that fetches the row, and checks a new row's
// references before it is written.

export type Flag = 'read' | 'write' | 'launch_job' | 'admin'
export const FLAGS: readonly Flag[] = ['read', 'write', 'launch_job', 'admin']

export interface Caller {
  id: number
  username: string
  isAdmin: boolean
  /** judged by what it owns alone: grants and group membership count for nothing (see ownedOnly) */
  ownedOnly?: boolean
}

/** The caller narrowed to what it owns. Every rule below adds grants and memberships only as alternatives
 * (OR, never NOT), so whatever the narrowed caller may do, the caller may do (docs/decisions.md §12). */
export const ownedOnly = (caller: Caller): Caller => ({ ...caller, ownedOnly: true })

/** The domain's refusal of something the caller may see but not do (a job launched on a tag set it only reads):
 * the HTTP layer answers it as a 403 with its message (server/plugins/errors.ts). */
export class AccessRefused extends Error {}

// a rule is one expression for the queries of every table; kysely's builder is invariant in its tables, so no
// narrower type accepts them all
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EB = ExpressionBuilder<any, any>
/** A column of the record being judged: a reference to the row, or a literal for a record not yet written. */
export type Col = (column: string) => Expression<unknown>
/** An access rule: `allows` is true when the caller holds `flag` on the record whose columns `col` gives;
 * `columns` are the columns it reads (records sharing them share the answer). */
export interface Scope {
  columns: readonly string[]
  allows: (eb: EB, caller: Caller, col: Col, flag: Flag) => Expression<SqlBool>
  /** The shortcut of this rule, declared beside it: a record is readable exactly when the record this column
   * names is readable by its own resource's rule (every tag of a readable tag set is readable). See
   * `allReadableWith`. */
  readableWith?: string
}
const scope = (columns: readonly string[], allows: Scope['allows'], readableWith?: string): Scope => ({
  columns,
  allows,
  ...(readableWith ? { readableWith } : {}),
})

/** Whether every record of `scope` whose `column` holds the id of a record the caller reads is readable, so
 * that the records of one readable parent (a sub-list such as tagSet/{id}/tags/, or the count of `?tagSet=`)
 * need the parent's rule once instead of their own rule per row. Any other use of a shortcut restates a rule. */
export const allReadableWith = (scope: Scope, column: string): boolean => scope.readableWith === column

const TRUE = sql<SqlBool>`true`
const FALSE = sql<SqlBool>`false`

/** Columns of a row in a query, under its alias. */
export const rowColumns =
  (alias: string): Col =>
  (c) =>
    sql.ref(`${alias}.${c}`)

/** Columns of a record given as values (create, or an update's new values). */
export const valueColumns =
  (values: Record<string, unknown>): Col =>
  (c) => {
    const v = values[c]
    if (v === null || v === undefined) return sql`null::integer`
    return typeof v === 'number' ? sql`${v}::integer` : sql`${String(v)}::text`
  }

/** The groups (appUserGroup ids) the caller belongs to. */
const myGroups = (eb: EB, caller: Caller) =>
  eb.selectFrom('app_user_group_users as gm').select('gm.group_id').where('gm.user_id', '=', caller.id)

/** Is `groupId` one of the caller's groups? */
const inMyGroups = (eb: EB, caller: Caller, groupId: Expression<unknown>): Expression<SqlBool> =>
  caller.ownedOnly ? FALSE : eb(groupId, 'in', myGroups(eb, caller))

/** The targets of type `targetType` the caller holds `flag` on by a grant to it or one of its groups
 * (admin implies all), as `id`. */
function grantedTargets(eb: EB, caller: Caller, targetType: string, flag: Flag) {
  return eb
    .selectFrom('app_permissions as p')
    .select('p.target_id as id')
    .where('p.target_type', '=', targetType)
    .where((e) =>
      flag === 'admin' ? e('p.admin', '=', true) : e.or([e(`p.${flag}`, '=', true), e('p.admin', '=', true)]),
    )
    .where((e) => grantedToCaller(e, caller, myGroups(e, caller)))
}

/** Grant `p` is to the caller, or to one of `groups` (the caller's). */
const grantedToCaller = (e: EB, caller: Caller, groups: ReturnType<typeof myGroups>): Expression<SqlBool> =>
  e.or([
    e.and([e('p.bearer_type', '=', 'user'), e('p.bearer_id', '=', caller.id)]),
    e.and([e('p.bearer_type', '=', 'appusergroup'), e('p.bearer_id', 'in', groups)]),
  ])

/** The rows through which the caller holds rights on records it does not own, its group memberships and the grants
 * to it and its groups, locked FOR SHARE by the statement: a grant revoked or changed, or a membership ended, waits
 * for the transaction that read them, whose checks and writes then commit under the rights they saw
 * (docs/architecture.md, "Writes and their checks"). */
export function heldRights(db: Kysely<DB>, caller: Caller) {
  return db
    .selectFrom('app_permissions as p')
    .select('p.id')
    .where((e) => grantedToCaller(e, caller, myGroups(e, caller).forShare()))
    .forShare()
}

/** A grant on (targetType, targetId) to the caller or one of their groups, carrying `flag`. */
function granted(
  eb: EB,
  caller: Caller,
  targetType: string,
  targetId: Expression<unknown>,
  flag: Flag,
): Expression<SqlBool> {
  if (caller.ownedOnly) return FALSE
  return eb.exists(grantedTargets(eb, caller, targetType, flag).where('p.target_id', '=', targetId))
}

/** The caller holds `flag` on the library: it is one of the libraries the caller owns or holds the flag on
 * by a grant. Those are listed once per statement (an uncorrelated array), so a list and its count look
 * their rows up through the library index instead of probing two subqueries for every row. */
export function libraryAllows(eb: EB, caller: Caller, libraryId: Expression<unknown>, flag: Flag): Expression<SqlBool> {
  if (caller.isAdmin) return TRUE
  const owned = eb.selectFrom('libraries as al').select('al.id').where('al.user_id', '=', caller.id)
  const ids = caller.ownedOnly ? owned : owned.unionAll(grantedTargets(eb, caller, 'library', flag))
  return sql<SqlBool>`${libraryId} = any(array(${ids}))`
}

export function tagSetAllows(eb: EB, caller: Caller, tagSetId: Expression<unknown>, flag: Flag): Expression<SqlBool> {
  if (caller.isAdmin) return TRUE
  return eb.or([
    eb.exists(
      eb
        .selectFrom('tag_sets as ats')
        .select(sql.lit(1).as('one'))
        .where('ats.id', '=', tagSetId)
        .where((e) =>
          e.or([
            e('ats.user_id', '=', caller.id),
            e.and([e('ats.library_id', 'is not', null), libraryAllows(e, caller, e.ref('ats.library_id'), flag)]),
          ]),
        ),
    ),
    granted(eb, caller, 'tagset', tagSetId, flag),
  ])
}

export function groupAllows(eb: EB, caller: Caller, groupId: Expression<unknown>, flag: Flag): Expression<SqlBool> {
  if (caller.isAdmin) return TRUE
  const creator = eb.exists(
    eb
      .selectFrom('app_user_groups as ag')
      .select(sql.lit(1).as('one'))
      .where('ag.id', '=', groupId)
      .where('ag.created_by', '=', caller.id),
  )
  if (flag !== 'read') return eb.or([creator, granted(eb, caller, 'appusergroup', groupId, 'admin')])
  return eb.or([creator, inMyGroups(eb, caller, groupId), granted(eb, caller, 'appusergroup', groupId, 'read')])
}

// ---- scopes: the rule a resource's records follow ----

/** Records of a library (the library's own id, or a column holding it). */
export const onLibrary = (column: string): Scope =>
  scope([column], (eb, caller, col, flag) => libraryAllows(eb, caller, col(column), flag), column)

/** Records whose library is reached through another record: `column` -> table.id, whose `libraryColumn` is the
 * library. Readable with that record, whose own rule is its library's (`onLibrary`, as a media file's). */
export const onLibraryVia = (column: string, table: string, libraryColumn = 'library_id'): Scope =>
  scope(
    [column],
    (eb, caller, col, flag) =>
      caller.isAdmin
        ? TRUE
        : libraryAllows(
            eb,
            caller,
            eb.selectFrom(`${table} as via`).select(`via.${libraryColumn}`).where('via.id', '=', col(column)),
            flag,
          ),
    column,
  )

/** Records of a tag set. */
export const onTagSet = (column: string): Scope =>
  scope([column], (eb, caller, col, flag) => tagSetAllows(eb, caller, col(column), flag), column)

/** A reviewer's decision on a tag (tagReview/): read by readers of the tag's tag set; made, changed and deleted
 * by the reviewer while it may write that tag set (a decision is its reviewer's word, so nobody else's to change).
 * A stored decision keeps a copy of its tag's set (`tagSetColumn`, kept by triggers: migration 2026_11_27_3401),
 * which reads use instead of looking each decision's tag up; a decision being written is judged by its tag's. */
export const onReviewOfTag = (tagColumn: string, reviewerColumn: string, tagSetColumn: string): Scope =>
  scope([tagColumn, reviewerColumn, tagSetColumn], (eb, caller, col, flag) => {
    if (flag === 'read') return tagSetAllows(eb, caller, col(tagSetColumn), 'read')
    const tagSetOfTag = eb.selectFrom('tags as rt').select('rt.tag_set_id').where('rt.id', '=', col(tagColumn))
    const onTagSet = tagSetAllows(eb, caller, tagSetOfTag, 'write')
    if (caller.isAdmin) return onTagSet
    return eb.and([eb(col(reviewerColumn), '=', caller.id), onTagSet])
  })

/** Records that only their owner (and site admins) may see and change. */
export const ownedBy = (column: string): Scope =>
  scope([column], (eb, caller, col) => (caller.isAdmin ? TRUE : eb(col(column), '=', caller.id)))

/** A sensor: its owner (and site admins) change it; the readers of a library holding a recording made by it read
 * it as well, so the tables of a shared library name its sensors (docs/decisions.md §6). */
export const sensorOwnedOrRecorded = (ownerColumn: string, idColumn: string): Scope =>
  scope([ownerColumn, idColumn], (eb, caller, col, flag) => {
    if (caller.isAdmin) return TRUE
    const owner = eb(col(ownerColumn), '=', caller.id)
    if (flag !== 'read' || caller.ownedOnly) return owner
    return eb.or([
      owner,
      eb.exists(
        eb
          .selectFrom('media_files as sm')
          .select(sql.lit(1).as('one'))
          .where('sm.sensor_id', '=', col(idColumn))
          .where((e) => libraryAllows(e, caller, e.ref('sm.library_id'), 'read')),
      ),
    ])
  })

/** Records owned through another record: `column` -> table.id, whose `ownerColumn` is the owner. */
export const ownedVia = (column: string, table: string, ownerColumn = 'user_id'): Scope =>
  scope([column], (eb, caller, col) =>
    caller.isAdmin
      ? TRUE
      : eb.exists(
          eb
            .selectFrom(`${table} as via`)
            .select(sql.lit(1).as('one'))
            .where('via.id', '=', col(column))
            .where(`via.${ownerColumn}`, '=', caller.id),
        ),
  )

/** appUserGroup: creator, members and grantees read; creator or an admin grant change. */
export const onGroup = (column: string): Scope =>
  scope([column], (eb, caller, col, flag) => groupAllows(eb, caller, col(column), flag))

/** appPermission: creator, bearer and admins of the target read; only admins of the target change. */
export const onPermission: Scope = scope(
  ['target_type', 'target_id', 'created_by', 'bearer_type', 'bearer_id'],
  (eb, caller, col, flag) => {
    if (caller.isAdmin) return TRUE
    const adminOfTarget = eb.or([
      eb.and([eb(col('target_type'), '=', 'library'), libraryAllows(eb, caller, col('target_id'), 'admin')]),
      eb.and([eb(col('target_type'), '=', 'tagset'), tagSetAllows(eb, caller, col('target_id'), 'admin')]),
      eb.and([eb(col('target_type'), '=', 'appusergroup'), groupAllows(eb, caller, col('target_id'), 'admin')]),
    ])
    if (flag !== 'read') return adminOfTarget
    return eb.or([
      adminOfTarget,
      eb(col('created_by'), '=', caller.id),
      eb.and([eb(col('bearer_type'), '=', 'user'), eb(col('bearer_id'), '=', caller.id)]),
      eb.and([eb(col('bearer_type'), '=', 'appusergroup'), inMyGroups(eb, caller, col('bearer_id'))]),
    ])
  },
)

/** Lookup tables: any authenticated user reads. */
export const everyone: Scope = scope([], () => TRUE)

/** Site admins only. */
/** Read by every authenticated user, changed by site admins only (model/). */
export const readByAllChangedByAdmins: Scope = scope([], (_eb, caller, _col, flag) =>
  flag === 'read' || caller.isAdmin ? TRUE : FALSE,
)

export const adminsOnly: Scope = scope([], (_eb, caller) => (caller.isAdmin ? TRUE : sql<SqlBool>`false`))

// ---- who a caller may name ----

/** The ids of the users whose usernames the caller may learn (`usernames/`, docs/decisions.md §22): itself; the
 * owners of the libraries and tag sets it reads and the bearers of grants on them (a bearer group's members too);
 * the creators and members of the groups it reads. People it shares something with, and nobody else. Projects
 * are their owners' alone, so they name nobody else. Site admins: every user. */
export function knownUsers(eb: EB, caller: Caller) {
  if (caller.isAdmin) return eb.selectFrom('users as ku').select('ku.id as id')
  const readableTarget = (e: EB) =>
    e.or([
      e.and([e('kp.target_type', '=', 'library'), libraryAllows(e, caller, e.ref('kp.target_id'), 'read')]),
      e.and([e('kp.target_type', '=', 'tagset'), tagSetAllows(e, caller, e.ref('kp.target_id'), 'read')]),
      e.and([e('kp.target_type', '=', 'appusergroup'), groupAllows(e, caller, e.ref('kp.target_id'), 'read')]),
    ])
  return eb
    .selectFrom('users as ku')
    .select('ku.id as id')
    .where('ku.id', '=', caller.id)
    .union(
      eb
        .selectFrom('libraries as kl')
        .select('kl.user_id as id')
        .where((e) => libraryAllows(e, caller, e.ref('kl.id'), 'read')),
    )
    .union(
      eb
        .selectFrom('tag_sets as kt')
        .select('kt.user_id as id')
        .where((e) => tagSetAllows(e, caller, e.ref('kt.id'), 'read')),
    )
    .union(
      eb
        .selectFrom('app_permissions as kp')
        .select('kp.bearer_id as id')
        .where('kp.bearer_type', '=', 'user')
        .where(readableTarget),
    )
    .union(
      eb
        .selectFrom('app_permissions as kp')
        .innerJoin('app_user_group_users as kb', 'kb.group_id', 'kp.bearer_id')
        .select('kb.user_id as id')
        .where('kp.bearer_type', '=', 'appusergroup')
        .where(readableTarget),
    )
    .union(
      eb
        .selectFrom('app_user_groups as kg')
        .select('kg.created_by as id')
        .where((e) => groupAllows(e, caller, e.ref('kg.id'), 'read')),
    )
    .union(
      eb
        .selectFrom('app_user_group_users as km')
        .select('km.user_id as id')
        .where((e) => groupAllows(e, caller, e.ref('km.group_id'), 'read')),
    )
}
