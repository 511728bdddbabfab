import type { Kysely, Transaction } from 'kysely'
import { libraryAllows } from '../access.js'
import type { DB } from '../db/schema.js'
import { UnsupportedAudioError, type MonoAudio } from './audio.js'
import { decodeAudio } from './decode.js'
import type { RunningJob } from './jobType.js'
import { meanVector, spectrogram, type SpectraSettings, type Spectrogram } from './spectra.js'

// What the discovery jobs share: the media a job works on, their spectra,
// sliding windows over them, and the tag classes their tags are filed under.

export interface MediaRow { id: number; file: string; library_id: number }
export interface WindowVector { start: number; end: number; vector: Float64Array }

/** The job's media file (mediaFileId), or every media file of its project its owner can read. */
export async function targetMedia(job: RunningJob): Promise<MediaRow[]> {
  const one = job.params.mediaFileId as number | undefined
  return job.db.selectFrom('media_files as m').select(['m.id', 'm.file', 'm.library_id'])
    .$if(one !== undefined, (q) => q.where('m.id', '=', one!))
    .$if(one === undefined, (q) => q.where('m.id', 'in', job.db.selectFrom('project_media_files')
      .select('media_file_id').where('project_id', '=', job.job.project_id)))
    .where((eb) => libraryAllows(eb, job.owner, eb.ref('m.library_id'), 'read'))
    .orderBy('m.id').execute()
}

export async function spectrogramOf(job: RunningJob, media: MediaRow, settings: SpectraSettings): Promise<Spectrogram> {
  const audio = await audioOf(job, media)
  return spectrogram(audio.samples, audio.sampleRate, settings)
}

/** The decoded samples of a media file. */
export async function audioOf(job: RunningJob, media: MediaRow): Promise<MonoAudio> {
  try {
    return await decodeAudio(job.storage.read(media.file))
  } catch (e) {
    if (e instanceof UnsupportedAudioError) throw new Error(`Media file ${media.id}: ${e.message}.`)
    throw new Error(`Media file ${media.id}: its stored file cannot be read.`)
  }
}

/** Windows of `size` seconds every `size / 2` seconds over the whole spectrogram. */
export function slidingWindows(s: Spectrogram, size: number): WindowVector[] {
  const duration = s.frames / s.framesPerSecond
  const out: WindowVector[] = []
  const hop = size / 2
  for (let start = 0; start + size <= duration + 1e-9; start += hop) {
    const r = Math.round(start * 1000) / 1000
    out.push({ start: r, end: Math.round((start + size) * 1000) / 1000, vector: meanVector(s, start, start + size) })
  }
  return out
}

/** The tag class called `name` in `library`, created (owned by `userId`) when missing. */
export async function tagClassNamed(trx: Transaction<DB> | Kysely<DB>, userId: number, library: number, name: string): Promise<number> {
  const found = await trx.selectFrom('tag_classes').select('id')
    .where('library_id', '=', library).where('class_name', '=', name).orderBy('id').executeTakeFirst()
  if (found) return found.id
  const made = await trx.insertInto('tag_classes')
    .values({ user_id: userId, library_id: library, class_name: name, display_name: name })
    .returning('id').executeTakeFirstOrThrow()
  return made.id
}

/** A job whose output was written by an earlier run that died before ending it has nothing left to do. */
export function alreadyWritten(job: RunningJob): boolean {
  return job.job.num_to_complete > 0 && job.job.num_completed >= job.job.num_to_complete
}
