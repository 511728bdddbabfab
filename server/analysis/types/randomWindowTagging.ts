import type { Transaction } from 'kysely'
import type { DB } from '../../db/schema.js'
import { localTimestamp } from '../../db/time.js'
import { tagClassNamed } from '../discovery.js'
import { RANDOM_WINDOW_TAGGING } from '../catalog.js'
import { jobMediaQuery } from '../jobMedia.js'
import { jobProvenance } from '../provenance.js'
import type { JobType, RunningJob } from '../jobType.js'
import { newSeed, seededRandom } from '../random.js'

// RandomWindowTagging (2): numWindowsToTag windows of windowSizeInSeconds,
// placed uniformly over the total duration of the media (one file, or every
// file of the job's project and/or library: jobMedia.ts), each written as a RandomWindow row and a tag
// with randomlyChosen true in destinationTagSet. The windows follow from the
// seed (chosen and kept as a parameter when not given), so a resumed job
// writes exactly the windows it had not written yet.

const CHUNK = 200
export const DEFAULT_CLASS = 'randomWindow'

interface Media {
  id: number
  libraryId: number
  duration: number
  maxFrequency: number
}
interface Window {
  media: Media
  start: number
}

export const randomWindowTaggingJob: JobType<typeof RANDOM_WINDOW_TAGGING> = {
  ...RANDOM_WINDOW_TAGGING,
  async run(job) {
    const count = job.params.numWindowsToTag
    const size = job.params.windowSizeInSeconds
    const tagSet = job.params.destinationTagSet
    const media = await mediaOf(job, size)
    if (!media.length)
      throw new Error(`No media file of this job is longer than the window size (${size} s) with a known duration.`)
    const seed = job.params.seed ?? (await keepSeed(job))
    const windows = chooseWindows(media, size, count, seed)
    await job.setTotal(count)
    const set = await job.db
      .selectFrom('tag_sets')
      .select('library_id')
      .where('id', '=', tagSet)
      .executeTakeFirstOrThrow()
    const classes = new Map<number, number>()
    const provenance = jobProvenance(RANDOM_WINDOW_TAGGING.name, job, { seed })
    for (let from = job.job.num_completed; from < count; from += CHUNK) {
      const part = windows.slice(from, Math.min(count, from + CHUNK))
      await job.step(part.length, async (trx) => {
        const now = localTimestamp()
        for (const w of part) {
          const library = set.library_id ?? w.media.libraryId
          if (!classes.has(library)) classes.set(library, await tagClassFor(trx, job, library))
        }
        await trx
          .insertInto('random_windows')
          .values(
            part.map((w) => ({
              job_id: job.job.id,
              media_file_id: w.media.id,
              start_time: w.start,
              end_time: w.start + size,
            })),
          )
          .execute()
        await trx
          .insertInto('tags')
          .values(
            part.map((w) => ({
              user_id: job.job.user_id,
              creation_date: now,
              tag_set_id: tagSet,
              media_file_id: w.media.id,
              tag_class_id: classes.get(set.library_id ?? w.media.libraryId)!,
              start_time: w.start,
              end_time: w.start + size,
              min_frequency: 0,
              max_frequency: w.media.maxFrequency,
              randomly_chosen: true,
              provenance,
            })),
          )
          .execute()
      })
    }
  },
}

/** Windows starting uniformly over the concatenated span of possible starts of every file. */
export function chooseWindows(media: Media[], size: number, count: number, seed: number): Window[] {
  const random = seededRandom(seed)
  const spans = media.map((m) => Math.max(0, m.duration - size))
  const total = spans.reduce((a, b) => a + b, 0)
  const out: Window[] = []
  for (let i = 0; i < count; i++) {
    let at = random() * total
    let k = 0
    while (k < media.length - 1 && at >= spans[k]) {
      at -= spans[k]
      k++
    }
    out.push({ media: media[k], start: Math.round(Math.min(at, spans[k]) * 1000) / 1000 })
  }
  return out
}

async function mediaOf(job: RunningJob, size: number): Promise<Media[]> {
  const rows = await jobMediaQuery(job)
    .innerJoin('media_file_metadata as d', (j) =>
      j.onRef('d.media_file_id', '=', 'm.id').on('d.name', '=', 'durationInSeconds'),
    )
    .leftJoin('media_file_metadata as r', (j) =>
      j.onRef('r.media_file_id', '=', 'm.id').on('r.name', '=', 'sampleRate'),
    )
    .select(['m.id', 'm.library_id', 'd.value as duration', 'r.value as rate'])
    .orderBy('m.id')
    .execute()
  return rows
    .map((r) => ({
      id: r.id,
      libraryId: r.library_id,
      duration: Number(r.duration),
      maxFrequency: Number(r.rate) > 0 ? Number(r.rate) / 2 : 0,
    }))
    .filter((m) => Number.isFinite(m.duration) && m.duration >= size)
}

/** A seed chosen for a job without one is kept with its parameters, so a resumed run makes the same choices. */
async function keepSeed(job: RunningJob): Promise<number> {
  const seed = newSeed()
  await job.step(0, async (trx) => {
    await trx
      .insertInto('job_parameters')
      .values({ job_id: job.job.id, name: 'seed', value: String(seed) })
      .execute()
  })
  return seed
}

/** The job's tag class in `library`: the one it names, or one called by its name (default randomWindow), created when missing. */
async function tagClassFor(trx: Transaction<DB>, job: RunningJob, library: number): Promise<number> {
  const given = job.params.tagClass
  return typeof given === 'number' ? given : tagClassNamed(trx, job.job.user_id, library, given ?? DEFAULT_CLASS)
}
