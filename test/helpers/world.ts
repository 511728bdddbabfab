import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sql } from 'kysely'
import * as assert from 'uvu/assert'
import { localTimestamp } from '../../server/db/time.js'
import type { TestApp, TestUser } from './app.js'
import { addToProject, makeJob, makeProject } from './jobs.js'
import {
  grant,
  makeGroup,
  makeLibrary,
  makeMediaFile,
  makeMetaData,
  makeTag,
  makeTagClass,
  makeTagExample,
  makeTagSet,
  type MediaFileOptions,
  type Target,
} from './records.js'
import { makeWav } from './wav.js'
export { storedFiles } from './upload.js'

// The records and callers tests share. `makeCallers`: alice, bob, carol and a site admin. `makeRecords`: the
// usual records, one owner's library holding a tag set, a tag class and a media file, for a test file's `before`.
// `makeRoleCallers`: a caller in every role of a resource's access matrix (owner, reader, writer, group member,
// grant admin, stranger, site admin, anonymous), with `sharedLibrary` and `makeRoleWorld` for those callers and a
// library granted to them (and the usual records in it), and `statusMatrix` and `listMatrix` to try them all.
// `makeWorld`: a small world for tests that try every route, those records and one of every other kind (with
// stored bytes behind the media file and the job result file), and a caller in each role the access rules know about.

/** The roles a world's requests are tried as: the usual callers (RoleCallers) whose grants are the library's
 * read and write, and two that must reach nothing: a user whose grant was revoked, and an inactive one. */
export type Role = 'owner' | 'stranger' | 'writer' | 'member' | 'revoked' | 'admin' | 'inactive' | 'anonymous'
export const ROLES: Role[] = ['owner', 'stranger', 'writer', 'member', 'revoked', 'admin', 'inactive', 'anonymous']

export interface World {
  /** the usual callers, with the library granted to them (grantRoles), and a revoked and an inactive user */
  users: Omit<RoleCallers, 'anonymous' | 'group'> & { revoked: TestUser; inactive: TestUser }
  /** the Authorization header of each role ({} for anonymous) */
  auth: Record<Role, Record<string, string>>
  /** record ids by resource name, each owned by `owner` */
  ids: Record<string, number>
  /** stored names under the media directory */
  files: { mediaFile: string; jobResultFile: string }
}

let serial = 0

/** The usual callers of a test of one resource: alice makes its records, bob and carol are other users, admin a
 * site admin (users named so, for tests that name them). */
export interface Callers {
  alice: TestUser
  bob: TestUser
  carol: TestUser
  admin: TestUser
}

export async function makeCallers(t: Pick<TestApp, 'user'>): Promise<Callers> {
  return {
    alice: await t.user('alice'),
    bob: await t.user('bob'),
    carol: await t.user('carol'),
    admin: await t.user('admin', { admin: true }),
  }
}

/** One owner's usual records: a library, and in it a tag set, a tag class and a media file (a row, no bytes). */
export interface Records {
  owner: TestUser
  library: number
  tagSet: number
  tagClass: number
  mediaFile: number
}

export interface RecordOptions {
  /** the library's name (default: a fresh one) */
  library?: string
  /** the tag set's name (default: a fresh one) */
  tagSet?: string
  /** the tag class's name and display name */
  tagClass?: { className: string; displayName?: string }
  mediaFile?: MediaFileOptions
}

/** The usual records of `owner` (a user, or the username of a new one). */
export async function makeRecords(
  t: Pick<TestApp, 'db' | 'user'>,
  owner: TestUser | string,
  o: RecordOptions = {},
): Promise<Records> {
  const user = typeof owner === 'string' ? await t.user(owner) : owner
  return recordsIn(t, user, await makeLibrary(t.db, user, o.library), o)
}

/** The references a tag (or a tag body) takes from the usual records. */
export const tagRefs = (r: Records) => ({ tagSet: r.tagSet, mediaFile: r.mediaFile, tagClass: r.tagClass })

/** The usual records of `owner` in its `library`. */
async function recordsIn(t: Pick<TestApp, 'db'>, owner: TestUser, library: number, o: RecordOptions): Promise<Records> {
  return {
    owner,
    library,
    tagSet: await makeTagSet(t.db, owner, library, o.tagSet),
    tagClass: await makeTagClass(t.db, owner, library, o.tagClass?.className, o.tagClass?.displayName),
    mediaFile: await makeMediaFile(t.db, owner, library, o.mediaFile),
  }
}

/** The roles of a resource's access matrix: every way a user may (or may not) reach a record under
 * docs/decisions.md §6, and anonymous. */
export const MATRIX_ROLES = [
  'owner',
  'stranger',
  'reader',
  'writer',
  'member',
  'grantAdmin',
  'admin',
  'anonymous',
] as const
export type MatrixRole = (typeof MATRIX_ROLES)[number]

/** A caller in each role of MATRIX_ROLES; `grantRoles` gives them their grants on a record. */
export interface RoleCallers {
  owner: TestUser
  /** no relation to anything */
  stranger: TestUser
  /** a user grant with read */
  reader: TestUser
  /** a user grant with read and write */
  writer: TestUser
  /** member of `group`, which holds a read and write grant */
  member: TestUser
  /** a user grant with admin */
  grantAdmin: TestUser
  /** a site admin */
  admin: TestUser
  anonymous: undefined
  group: number
}

/** The callers of MATRIX_ROLES, named `<prefix>-<role>`, without grants. */
export async function makeRoleCallers(t: Pick<TestApp, 'db' | 'user'>, prefix: string): Promise<RoleCallers> {
  const u = (role: string, admin = false) => t.user(`${prefix}-${role}`, { admin })
  const owner = await u('owner')
  const member = await u('member')
  return {
    owner,
    member,
    stranger: await u('stranger'),
    reader: await u('reader'),
    writer: await u('writer'),
    grantAdmin: await u('grantadmin'),
    admin: await u('admin', true),
    anonymous: undefined,
    group: await makeGroup(t.db, owner, [member]),
  }
}

/** The grants of reader, writer, the member's group and grantAdmin on `target`, made by its owner; their ids. */
export async function grantRoles(t: Pick<TestApp, 'db'>, callers: RoleCallers, target: Target) {
  return {
    reader: await grant(t.db, callers.owner, { user: callers.reader.id }, target, ['read']),
    writer: await grant(t.db, callers.owner, { user: callers.writer.id }, target, ['read', 'write']),
    group: await grant(t.db, callers.owner, { group: callers.group }, target, ['read', 'write']),
    grantAdmin: await grant(t.db, callers.owner, { user: callers.grantAdmin.id }, target, ['admin']),
  }
}

/** A library of the callers' owner, with their grants on it (grantRoles). */
export async function grantedLibrary(t: Pick<TestApp, 'db'>, callers: RoleCallers): Promise<number> {
  const library = await makeLibrary(t.db, callers.owner)
  await grantRoles(t, callers, { library })
  return library
}

/** The callers of MATRIX_ROLES and an empty library granted to them. */
export async function sharedLibrary(
  t: Pick<TestApp, 'db' | 'user'>,
  prefix: string,
): Promise<{ callers: RoleCallers; library: number }> {
  const callers = await makeRoleCallers(t, prefix)
  return { callers, library: await grantedLibrary(t, callers) }
}

/** The callers of MATRIX_ROLES and their owner's usual records, in a library granted to them. */
export async function makeRoleWorld(
  t: Pick<TestApp, 'db' | 'user'>,
  prefix: string,
  o: RecordOptions = {},
): Promise<Records & { callers: RoleCallers }> {
  const { callers, library } = await sharedLibrary(t, prefix)
  return { callers, ...(await recordsIn(t, callers.owner, library, o)) }
}

export type Expect<T> = Record<MatrixRole, T>

/** Call once per role (`request` may build a fresh record per role) and compare every status at once. */
export async function statusMatrix(
  t: Pick<TestApp, 'call'>,
  callers: RoleCallers,
  expected: Expect<number>,
  request: (role: MatrixRole) => Promise<{ method: string; url: string; body?: unknown }>,
): Promise<void> {
  const got: Partial<Expect<number>> = {}
  for (const role of MATRIX_ROLES) {
    const r = await request(role)
    const res = await t.call(r.method, r.url, { as: callers[role], body: r.body })
    got[role] = res.statusCode
  }
  assert.equal(got, expected)
}

/** The ids each role sees in a list (every page), compared at once; `count` must match the ids. */
export async function listMatrix(
  t: Pick<TestApp, 'call'>,
  callers: RoleCallers,
  url: string,
  expected: Partial<Expect<number[]>>,
): Promise<void> {
  const got: Partial<Expect<number[]>> = {}
  for (const role of Object.keys(expected) as MatrixRole[]) {
    const res = await t.call('GET', url, { as: callers[role] })
    assert.is(res.statusCode, 200, `${role} lists ${url}`)
    const ids = res.data.results.map((r: { id: number }) => r.id)
    assert.is(res.data.count, ids.length, `${role}: count counts only visible rows`)
    got[role] = ids
  }
  assert.equal(got, expected)
}

/** Bytes written straight into the media directory under `name`. */
export function storeBytes(t: TestApp, name: string, bytes: Buffer) {
  const path = join(t.app.config.mediaDir, name)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, bytes)
}

export async function makeWorld(t: TestApp, prefix = `w${++serial}`): Promise<World> {
  const db = t.db
  const { anonymous: _anonymous, group, ...callers } = await makeRoleCallers(t, prefix)
  const owner = callers.owner
  const users = {
    ...callers,
    revoked: await t.user(`${prefix}-revoked`),
    inactive: await t.user(`${prefix}-inactive`, { active: false }),
  }
  const wav = makeWav({ seconds: 0.2, frequency: 300 + serial })
  const mediaName = `world/${prefix}-media.wav`
  storeBytes(t, mediaName, wav)
  const { library, tagSet, tagClass, mediaFile } = await makeRecords(t, owner, {
    mediaFile: { file: mediaName, md5: createHash('md5').update(wav).digest('hex'), size: wav.length },
  })
  const metaData = await makeMetaData(db, mediaFile, 'fileSize', String(wav.length))
  const field = await db
    .insertInto('media_file_user_metadata_fields')
    .values({ name: `${prefix}-field`, library_id: library, description: 'notes' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const userMeta = await db
    .insertInto('media_file_user_metadata')
    .values({ media_file_id: mediaFile, metadata_field_id: field.id, value: 'v' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const tag = await makeTag(db, owner, { tagSet, mediaFile, tagClass })
  const tagExample = await makeTagExample(db, owner, { tagSet, mediaFile })
  const tagReview = await db
    .insertInto('tag_reviews')
    .values({ tag_id: tag, user_id: owner.id, decision: 'yes', creation_date: localTimestamp() })
    .returning('id')
    .executeTakeFirstOrThrow()
  const project = await makeProject(db, owner)
  await addToProject(db, project, [mediaFile])
  const job = await makeJob(db, owner, project, 8, { note: 'x' })
  const jobParameter = await db
    .selectFrom('job_parameters')
    .select('id')
    .where('job_id', '=', job)
    .executeTakeFirstOrThrow()
  const resultName = `world/${prefix}-result.txt`
  storeBytes(t, resultName, Buffer.from('result\n'))
  const resultFile = await db
    .insertInto('job_result_files')
    .values({ job_id: job, creation_date: localTimestamp(), result_file: resultName, notes: 'n' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const window = await db
    .insertInto('random_windows')
    .values({ job_id: job, media_file_id: mediaFile, start_time: 0, end_time: 0.1 })
    .returning('id')
    .executeTakeFirstOrThrow()
  const sensorArray = await db
    .insertInto('sensor_arrays')
    .values({ user_id: owner.id, name: `${prefix}-array` })
    .returning('id')
    .executeTakeFirstOrThrow()
  const sensor = await db
    .insertInto('sensors')
    .values({ user_id: owner.id, name: `${prefix}-sensor`, sensor_array_id: sensorArray.id })
    .returning('id')
    .executeTakeFirstOrThrow()
  const model = await db
    .insertInto('models')
    .values({
      name: `${prefix}-model`,
      file: `models/${prefix}.onnx`,
      md5: '0'.repeat(32),
      size: 1,
      user_id: owner.id,
      creation_date: localTimestamp(),
      manifest: JSON.stringify({
        sampleRate: 16000,
        windowSeconds: 1,
        input: { name: 'audio', layout: 'batch,samples' },
        outputs: { scores: 'scores' },
        labels: ['a'],
        version: '',
      }),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const settings = await t.call('GET', '/api/v0/userSettings/', { as: owner })
  const userGrant = (await grantRoles(t, { ...callers, group, anonymous: undefined }, { library })).writer
  const revokedGrant = await grant(db, owner, { user: users.revoked.id }, { library }, ['read', 'write', 'admin'])
  await db.deleteFrom('app_permissions').where('id', '=', revokedGrant).execute()
  await grant(db, owner, { user: users.inactive.id }, { library }, ['read', 'write', 'admin'])

  const auth = Object.fromEntries([
    ...Object.entries(users).map(([role, u]) => [role, u.auth]),
    ['anonymous', {}],
  ]) as World['auth']
  return {
    users,
    auth,
    files: { mediaFile: mediaName, jobResultFile: resultName },
    ids: {
      library,
      tagSet,
      tagClass,
      mediaFile,
      mediaFileMetaData: metaData,
      mediaFileUserMetaDataField: field.id,
      mediaFileUserMetaData: userMeta.id,
      tag,
      tagExample,
      tagReview: tagReview.id,
      project,
      jobs: job,
      jobParameters: jobParameter.id,
      jobResultFile: resultFile.id,
      randomWindow: window.id,
      sensorArray: sensorArray.id,
      sensor: sensor.id,
      userSettings: settings.data?.results?.[0]?.id ?? 0,
      appUserGroup: group,
      appPermission: userGrant,
      user: owner.id,
      model: model.id,
    },
  }
}

/** Row counts and a checksum of every table, to show that a request changed nothing. A failed password is the
 * one rejection that is recorded, by design (`login_failures`, the brute-force limit), so that table is left out.
 * A kept count's table (rows of deltas, folded into fewer rows by a timer whenever it likes) is taken by its sums
 * per key: what it says, not how many rows say it. */
export async function databaseState(t: TestApp): Promise<string> {
  const columns = await sql<{ table: string; column: string }>`select c.table_name as table, c.column_name as column
    from information_schema.columns c join information_schema.tables x on x.table_schema = c.table_schema and x.table_name = c.table_name
    where c.table_schema = current_schema() and x.table_type = 'BASE TABLE' and c.table_name not like 'kysely_%'
    and c.table_name <> 'login_failures' order by c.table_name, c.ordinal_position`.execute(t.db)
  const byTable = new Map<string, string[]>()
  for (const { table, column } of columns.rows) byTable.set(table, [...(byTable.get(table) ?? []), column])
  const parts = [...byTable].map(([n, cols]) => {
    if (!cols.includes('delta'))
      return sql`select ${n} as t, count(*) as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from ${sql.table(n)} x`
    const sums = cols.filter((c) => c.endsWith('delta'))
    const keys = cols.filter((c) => !c.endsWith('delta') && c !== 'id')
    const folded = sql`select ${sql.join(keys.map((k) => sql.ref(k)))}, ${sql.join(sums.map((c) => sql`sum(${sql.ref(c)})`))} from ${sql.table(n)}
      group by ${sql.join(keys.map((k) => sql.ref(k)))} having ${sql.join(
        sums.map((c) => sql`sum(${sql.ref(c)}) <> 0`),
        sql` or `,
      )}`
    return sql`select ${n} as t, count(*) as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from (${folded}) x`
  })
  const rows = await sql<{ t: string; n: string; h: string }>`${sql.join(parts, sql` union all `)}`.execute(t.db)
  return rows.rows.map((r) => `${r.t}:${r.n}:${r.h}`).join('\n')
}

export async function walPosition(t: TestApp): Promise<string> {
  const r = await sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(t.db)
  return r.rows[0].lsn
}
