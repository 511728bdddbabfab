import type { Flag } from '../../server/access.js'
import type { Database } from '../../server/db/database.js'
import { localTimestamp } from '../../server/db/time.js'

// Records written straight into the database, for tests that need them to
// exist without going through (or while testing) the endpoints that create them.

type Db = Database['db']
type Owner = { id: number }

let serial = 0
const next = (prefix: string) => `${prefix}-${++serial}`

export async function makeLibrary(db: Db, owner: Owner, name = next('library')): Promise<number> {
  const row = await db
    .insertInto('libraries')
    .values({ user_id: owner.id, name, creation_date: localTimestamp() })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export interface MediaFileOptions {
  file?: string
  alias?: string
  type?: number
  active?: boolean
  hasTranscript?: boolean
  sensor?: number | null
  realStartTime?: string | null
  uploadDate?: string
  md5?: string | null
  size?: number | null
}

/** A media file row of `library` (no stored bytes), owned by `owner`. */
export async function makeMediaFile(db: Db, owner: Owner, library: number, o: MediaFileOptions = {}): Promise<number> {
  const file = o.file ?? `${next('media')}.wav`
  const row = await db
    .insertInto('media_files')
    .values({
      file,
      user_id: owner.id,
      library_id: library,
      type_id: o.type ?? 1,
      active: o.active ?? true,
      alias: o.alias ?? file,
      upload_date: o.uploadDate ?? localTimestamp(),
      has_transcript: o.hasTranscript ?? false,
      sensor_id: o.sensor ?? null,
      real_start_time: o.realStartTime ?? null,
      md5: o.md5 ?? null,
      size: o.size ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function makeMetaData(
  db: Db,
  mediaFile: number,
  name: string,
  value: string,
  userEditable = false,
): Promise<number> {
  const row = await db
    .insertInto('media_file_metadata')
    .values({ media_file_id: mediaFile, name, value, user_editable: userEditable })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function makeTagSet(db: Db, owner: Owner, library: number | null, name = next('tagset')): Promise<number> {
  const row = await db
    .insertInto('tag_sets')
    .values({ user_id: owner.id, name, library_id: library, creation_date: localTimestamp() })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function makeTagClass(
  db: Db,
  owner: Owner,
  library: number,
  className = next('class'),
  displayName = '',
): Promise<number> {
  const row = await db
    .insertInto('tag_classes')
    .values({ user_id: owner.id, library_id: library, class_name: className, display_name: displayName })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export interface TagOptions {
  startTime?: number
  endTime?: number
  minFrequency?: number
  maxFrequency?: number
  strength?: number
  parentTag?: number | null
  tagExample?: number | null
}

export async function makeTag(
  db: Db,
  owner: Owner,
  refs: { tagSet: number; mediaFile: number; tagClass: number },
  o: TagOptions = {},
): Promise<number> {
  const row = await db
    .insertInto('tags')
    .values({
      user_id: owner.id,
      creation_date: localTimestamp(),
      tag_class_id: refs.tagClass,
      tag_set_id: refs.tagSet,
      media_file_id: refs.mediaFile,
      start_time: o.startTime ?? 1,
      end_time: o.endTime ?? 2,
      min_frequency: o.minFrequency ?? 100,
      max_frequency: o.maxFrequency ?? 2000,
      strength: o.strength ?? 0,
      parent_tag_id: o.parentTag ?? null,
      tag_example_id: o.tagExample ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function makeTagExample(
  db: Db,
  owner: Owner,
  refs: { tagSet: number; mediaFile: number },
): Promise<number> {
  const row = await db
    .insertInto('tag_examples')
    .values({
      user_id: owner.id,
      creation_date: localTimestamp(),
      tag_set_id: refs.tagSet,
      media_file_id: refs.mediaFile,
      start_time: 1,
      end_time: 2,
      min_frequency: 100,
      max_frequency: 2000,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** An appUserGroup created by `creator`, holding `members`. */
export async function makeGroup(db: Db, creator: Owner, members: Owner[], name = next('group')): Promise<number> {
  const row = await db
    .insertInto('app_user_groups')
    .values({ name, created_by: creator.id, creation_date: localTimestamp() })
    .returning('id')
    .executeTakeFirstOrThrow()
  if (members.length) {
    await db
      .insertInto('app_user_group_users')
      .values(members.map((m) => ({ group_id: row.id, user_id: m.id })))
      .execute()
  }
  return row.id
}

export type Bearer = { user: number } | { group: number }
export type Target = { library: number } | { tagSet: number } | { group: number }

/** An appPermission row giving `flags` on `target` to `bearer`. */
export async function grant(db: Db, createdBy: Owner, bearer: Bearer, target: Target, flags: Flag[]): Promise<number> {
  const [targetType, targetId] =
    'library' in target
      ? ['library' as const, target.library]
      : 'tagSet' in target
        ? ['tagset' as const, target.tagSet]
        : ['appusergroup' as const, target.group]
  const row = await db
    .insertInto('app_permissions')
    .values({
      bearer_type: 'user' in bearer ? 'user' : 'appusergroup',
      bearer_id: 'user' in bearer ? bearer.user : bearer.group,
      target_type: targetType,
      target_id: targetId,
      creation_date: localTimestamp(),
      created_by: createdBy.id,
      read: flags.includes('read'),
      write: flags.includes('write'),
      launch_job: flags.includes('launch_job'),
      admin: flags.includes('admin'),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}
