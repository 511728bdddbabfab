import { sql, type Kysely, type Transaction } from 'kysely'
import { libraryAllows, type Caller } from '../access.js'
import { SPEECH_CLASS, SPEECH_DETECTION } from '../analysis/catalog.js'
import { insertQueuedJob, QUEUED } from '../analysis/state.js'
import type { DB, SpeechPolicy } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import { mediaFileNamed } from '../named.js'

// What a library's speech policy lets a caller hear of a recording (docs/decisions.md, "Speech policy"). Under
// keep, and for a caller who may change the library (its owner, writers, site admins), the stored audio. For
// everyone else, under mute, the audio with the spans of machine tags of the class speech (in any tag set of
// the library) silenced; under withhold, nothing of a file that has such a span. Under either, a file no
// SpeechDetection job has listened to yet is withheld: the policy fails closed until the scan has run.

/** seconds [start, end) of a recording */
export interface TimeSpan {
  start: number
  end: number
}

export type Hearing = { kind: 'original' } | { kind: 'muted'; spans: TimeSpan[] } | { kind: 'withheld'; reason: string }

/** What of the media file's audio the caller may hear. */
export async function hearingOf(
  db: Kysely<DB>,
  caller: Caller,
  file: { id: number; library_id: number; alias: string; speech_scanned_at: string | null },
): Promise<Hearing> {
  const library = await db
    .selectFrom('libraries as l')
    .select([
      'l.name',
      'l.speech_policy',
      (eb) => sql<boolean>`${libraryAllows(eb, caller, eb.ref('l.id'), 'write')}`.as('may_change'),
    ])
    .where('l.id', '=', file.library_id)
    .executeTakeFirst()
  if (!library || library.speech_policy === 'keep' || library.may_change) return { kind: 'original' }
  const named = mediaFileNamed(file)
  if (file.speech_scanned_at === null) {
    return {
      kind: 'withheld',
      reason: `${named} has not been checked for human speech yet, and library ${library.name} keeps speech from its readers: ask again once its scan has run.`,
    }
  }
  const spans = await speechSpansOf(db, file.id)
  if (!spans.length) return { kind: 'original' }
  if (library.speech_policy === 'withhold') {
    return {
      kind: 'withheld',
      reason: `${named} holds human speech, and library ${library.name} withholds such recordings from its readers.`,
    }
  }
  return { kind: 'muted', spans }
}

/** The spans of speech on a media file, merged where they overlap, in time order. */
async function speechSpansOf(db: Kysely<DB>, mediaFile: number): Promise<TimeSpan[]> {
  const rows = await db
    .selectFrom('tags as t')
    .innerJoin('tag_classes as c', 'c.id', 't.tag_class_id')
    .select(['t.start_time', 't.end_time'])
    .where('t.media_file_id', '=', mediaFile)
    .where('t.machine_tagged', '=', true)
    .where(sql<string>`lower(c.class_name)`, '=', SPEECH_CLASS)
    .orderBy('t.start_time')
    .execute()
  const spans: TimeSpan[] = []
  for (const r of rows) {
    const last = spans[spans.length - 1]
    if (last && r.start_time <= last.end) last.end = Math.max(last.end, r.end_time)
    else spans.push({ start: r.start_time, end: r.end_time })
  }
  return spans
}

/** the name of the tag set a library's speech scans write to (made when the library has none) */
export const SPEECH_TAG_SET = 'speech'

/**
 * Make sure a SpeechDetection job is queued for the library's files not yet listened to, under a policy other than
 * keep: one queued job serves every import made before it starts, so a bulk import queues one, not one a file.
 * Run in the transaction that set the policy or imported the file, holding the library's row lock, so that two
 * imports at once do not both queue one. The job is the library owner's, writing to its tag set `speech`.
 */
export async function queueSpeechScan(trx: Transaction<DB>, libraryId: number): Promise<void> {
  const library = await trx
    .selectFrom('libraries')
    .select(['id', 'name', 'user_id', 'speech_policy'])
    .where('id', '=', libraryId)
    .forUpdate()
    .executeTakeFirst()
  if (!library || library.speech_policy === 'keep') return
  const queued = await trx
    .selectFrom('jobs as j')
    .select('j.id')
    .where('j.type_id', '=', SPEECH_DETECTION.id)
    .where('j.status_id', '=', QUEUED)
    .where('j.is_running', '=', false)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('job_parameters as p')
          .select('p.id')
          .whereRef('p.job_id', '=', 'j.id')
          .where('p.name', '=', 'library')
          .where('p.value', '=', String(library.id)),
      ),
    )
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('job_parameters as p')
          .select('p.id')
          .whereRef('p.job_id', '=', 'j.id')
          .where('p.name', '=', 'unscannedOnly')
          .where('p.value', '=', '1'),
      ),
    )
    .limit(1)
    .executeTakeFirst()
  if (queued) return
  const now = localTimestamp()
  const tagSet =
    (await trx
      .selectFrom('tag_sets')
      .select('id')
      .where('library_id', '=', library.id)
      .where('name', '=', SPEECH_TAG_SET)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst()) ??
    (await trx
      .insertInto('tag_sets')
      .values({ user_id: library.user_id, name: SPEECH_TAG_SET, library_id: library.id, creation_date: now })
      .returning('id')
      .executeTakeFirstOrThrow())
  await insertQueuedJob(trx, {
    name: `speech scan of library ${library.name}`,
    user: library.user_id,
    type: SPEECH_DETECTION.id,
    parameters: { destinationTagSet: String(tagSet.id), library: String(library.id), unscannedOnly: '1' },
  })
}

/** the policies a library may have */
export const SPEECH_POLICIES: readonly SpeechPolicy[] = ['keep', 'mute', 'withhold']
