import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../db/schema.js'
import { extentsOf } from '../media/extent.js'
import { StoredFileError, UnsupportedAudioError } from './audioErrors.js'
import { openAudio } from './audioSource.js'
import { jobMediaQuery, type MediaSearchOptions } from './jobMedia.js'
import { tagSetNamed } from '../named.js'
import type { RunningJob } from './jobType.js'
import { csvText } from './results.js'

// What the discovery jobs share: the media a job works on, their spectra,
// sliding windows over them, and the tag classes their tags are filed under.

export interface MediaRow {
  id: number
  file: string
  library_id: number
  alias: string
}

/** The job's media file (mediaFileId), or every media file of its project and/or library (within its folder) its
 * owner can read, by id; `wholeSearch`: the latter even when mediaFileId names one (jobMedia.ts). */
export async function targetMedia(job: RunningJob, options?: MediaSearchOptions): Promise<MediaRow[]> {
  return jobMediaQuery(job, options).select(['m.id', 'm.file', 'm.library_id', 'm.alias']).orderBy('m.id').execute()
}

/** Why a file could not be analysed, in a line for a result file. */
export function describeFailure(e: unknown): string {
  if (e instanceof UnsupportedAudioError) return e.message
  if (e instanceof StoredFileError) return `its stored file cannot be read (${e.message})`
  return (e as Error).message ?? String(e)
}

export interface FileReport {
  mediaFile: number
  alias: string
  windows: number
  best: number | null
  tags: number
  note: string
}

/** A discovery result file: a CSV row per media file (its id and alias) with the windows scored, the best score and the tags written. */
export function discoveryReport(rows: FileReport[]): string {
  return csvText(
    ['mediaFile', 'alias', 'windowsScored', 'bestScore', 'tagsWritten', 'note'],
    rows.map((r) => [r.mediaFile, r.alias, r.windows, r.best === null ? '' : r.best.toFixed(4), r.tags, r.note]),
  )
}

/** Tag set `id` as a job's messages name it (named.ts), by its name where it still has one. */
export async function tagSetNamedIn(db: Kysely<DB> | Transaction<DB>, id: number): Promise<string> {
  const set = await db.selectFrom('tag_sets').select('name').where('id', '=', id).executeTakeFirst()
  return tagSetNamed({ id, name: set?.name })
}

/** The tag class called `name` in `library`, else the one whose name differs from it only in case (as the command
 * line finds classes), created (owned by `userId`) when there is none; several differing only in case are an error. */
export async function tagClassNamed(
  trx: Transaction<DB> | Kysely<DB>,
  userId: number,
  library: number,
  name: string,
): Promise<number> {
  const alike = await trx
    .selectFrom('tag_classes')
    .select(['id', 'class_name'])
    .where('library_id', '=', library)
    .where((eb) => eb(eb.fn('lower', ['class_name']), '=', name.toLowerCase()))
    .orderBy('id')
    .execute()
  const found = alike.find((c) => c.class_name === name) ?? (alike.length === 1 ? alike[0] : undefined)
  if (found) return found.id
  if (alike.length) {
    throw new Error(
      `${alike.length} tag classes of the library differ from "${name}" only in case: ` +
        `${alike.map((c) => `${c.class_name} (id ${c.id})`).join(', ')}; give one of them as it is written (or its id)`,
    )
  }
  const made = await trx
    .insertInto('tag_classes')
    .values({ user_id: userId, library_id: library, class_name: name, display_name: name })
    .returning('id')
    .executeTakeFirstOrThrow()
  return made.id
}

/** Each media file's length in seconds: the duration its import stored, else its header's; 0 for a file that cannot be read. */
export async function secondsOf(job: RunningJob, media: MediaRow[]): Promise<Map<number, number>> {
  const extents = await extentsOf(
    job.db,
    media.map((m) => m.id),
  )
  const seconds = new Map<number, number>()
  for (const m of media) {
    const stored = extents.get(m.id)?.duration
    if (stored !== undefined) {
      seconds.set(m.id, stored)
      continue
    }
    try {
      seconds.set(m.id, (await openAudio(job.storage, m.file)).info.duration)
    } catch {
      seconds.set(m.id, 0)
    }
  }
  return seconds
}

/** A job whose output was written by an earlier run that died before ending it has nothing left to do. */
export function alreadyWritten(job: RunningJob): boolean {
  return job.job.num_to_complete > 0 && job.job.num_completed >= job.job.num_to_complete
}
