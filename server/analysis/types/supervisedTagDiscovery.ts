import { libraryAllows } from '../../access.js'
import type { MonoAudio } from '../audio.js'
import { localTimestamp } from '../../db/time.js'
import { alreadyWritten, audioOf, slidingWindows, spectrogramOf, targetMedia } from '../discovery.js'
import { SUPERVISED_TAG_DISCOVERY, SUPERVISED_TAG_DISCOVERY_CHILD } from '../catalog.js'
import type { JobType, RunningJob } from '../jobType.js'
import { bandRange, meanVector, similarity, spectraSettingsOf, spectrogram, type SpectraSettings } from '../spectra.js'

// SupervisedTagDiscovery (1): learns from the tags of sourceTagSet (labelled
// examples) and finds, in each target media file, the numberOfTagsToDiscover
// windows of windowSizeInSeconds whose spectra (computed with the owner's
// UserSettings) are most like an example's. They are written to
// destinationTagSet as tags with machineTagged true, strength the similarity
// (times `weight`), and the tag class and frequency range of the nearest
// example. The job splits into one SupervisedTagDiscoveryChild (11) per media
// file; its progress is theirs summed.

const CHILD_TYPE = SUPERVISED_TAG_DISCOVERY_CHILD.id
const CHUNK = 500

export const supervisedTagDiscoveryJob: JobType = {
  ...SUPERVISED_TAG_DISCOVERY,
  async run(job) {
    const media = await targetMedia(job)
    if (!media.length) throw new Error('This job has no media file to search: give mediaFileId or add media files to its project.')
    const examples = await job.db.selectFrom('tags').select('id').where('tag_set_id', '=', job.params.sourceTagSet as number)
      .limit(1).execute()
    if (!examples.length) throw new Error(`Tag set ${job.params.sourceTagSet} (sourceTagSet) has no tags to learn from.`)
    const given = Object.fromEntries(Object.entries(job.params).map(([k, v]) => [k, String(v)]))
    await job.spawnChildren(media.map((m) => ({
      name: `${job.job.name || 'discovery'}: media file ${m.id}`,
      typeId: CHILD_TYPE,
      parameters: { ...given, mediaFileId: String(m.id) },
    })))
  },
}

export const supervisedTagDiscoveryChildJob: JobType = {
  ...SUPERVISED_TAG_DISCOVERY_CHILD,
  async run(job) {
    if (alreadyWritten(job)) return
    const settings = await spectraSettingsOf(job.db, job.owner.id)
    const [target] = await targetMedia(job)
    const examples = await sharedExamples(job, settings)
    const windows = slidingWindows(await spectrogramOf(job, target, settings), job.params.windowSizeInSeconds as number)
    await job.setTotal(windows.length + 1, true)
    const weight = job.params.weight as number
    const scored: Array<{ start: number; end: number; score: number; example: Example }> = []
    for (let from = 0; from < windows.length; from += CHUNK) {
      for (const w of windows.slice(from, from + CHUNK)) {
        let best = examples[0], score = -Infinity
        for (const e of examples) {
          const s = similarity(e.vector, w.vector, e.bands[0], e.bands[1])
          if (s > score) { score = s; best = e }
        }
        scored.push({ start: w.start, end: w.end, score, example: best })
      }
      await job.step(Math.min(CHUNK, windows.length - from))
    }
    const chosen = bestApart(scored, job.params.numberOfTagsToDiscover as number)
    const tagSet = job.params.destinationTagSet as number
    await job.step(1, async (trx) => {
      if (!chosen.length) return
      const now = localTimestamp()
      await trx.insertInto('tags').values(chosen.map((c) => ({
        user_id: job.job.user_id, creation_date: now, tag_set_id: tagSet, media_file_id: target.id,
        tag_class_id: c.example.tagClass, start_time: c.start, end_time: c.end,
        min_frequency: c.example.minFrequency, max_frequency: c.example.maxFrequency,
        machine_tagged: true, strength: c.score * weight,
      }))).execute()
    })
  },
}

interface Example { tagClass: number; minFrequency: number; maxFrequency: number; vector: Float64Array; bands: [number, number] }

/**
 * The children of one discovery job learn from the same examples: a worker computes them once for all
 * the children it runs (as the tag set was when the first of them started).
 */
const examplesByParent = new Map<string, Promise<Example[]>>()

function sharedExamples(job: RunningJob, settings: SpectraSettings): Promise<Example[]> {
  const key = `${job.job.parent_job_id ?? `self-${job.job.id}`}:${job.params.sourceTagSet}:${JSON.stringify(settings)}`
  let found = examplesByParent.get(key)
  if (!found) {
    found = examplesOf(job, settings)
    found.catch(() => examplesByParent.delete(key))
    examplesByParent.set(key, found)
    while (examplesByParent.size > 8) examplesByParent.delete(examplesByParent.keys().next().value!)
  }
  return found
}

/** Every tag of the source tag set on media the owner can read, as a spectral example (the spectra of its stretch only). */
async function examplesOf(job: RunningJob, settings: SpectraSettings): Promise<Example[]> {
  const tags = await job.db.selectFrom('tags as t').innerJoin('media_files as m', 'm.id', 't.media_file_id')
    .select(['t.tag_class_id', 't.start_time', 't.end_time', 't.min_frequency', 't.max_frequency', 'm.id', 'm.file', 'm.library_id'])
    .where('t.tag_set_id', '=', job.params.sourceTagSet as number)
    .where((eb) => libraryAllows(eb, job.owner, eb.ref('m.library_id'), 'read'))
    .orderBy('m.id').orderBy('t.id').limit(10_000).execute()
  if (!tags.length) throw new Error(`Tag set ${job.params.sourceTagSet} (sourceTagSet) has no tags on readable media to learn from.`)
  const out: Example[] = []
  const decoded = new Map<number, MonoAudio>() // examples come ordered by media file: one decoded at a time
  for (const t of tags) {
    if (!decoded.has(t.id)) {
      decoded.clear()
      decoded.set(t.id, await audioOf(job, { id: t.id, file: t.file, library_id: t.library_id }))
    }
    const audio = decoded.get(t.id)!
    const from = Math.max(0, Math.floor(t.start_time * audio.sampleRate))
    const to = Math.min(audio.samples.length, Math.max(from + 1, Math.ceil(t.end_time * audio.sampleRate)))
    const s = spectrogram(audio.samples.subarray(from, to), audio.sampleRate, settings)
    out.push({
      tagClass: t.tag_class_id, minFrequency: t.min_frequency, maxFrequency: t.max_frequency,
      vector: meanVector(s, 0, s.frames / s.framesPerSecond), bands: bandRange(s, t.min_frequency, t.max_frequency),
    })
  }
  return out
}

/** The `n` best-scoring windows that do not overlap each other, best first. */
function bestApart<T extends { start: number; end: number; score: number }>(windows: T[], n: number): T[] {
  const chosen: T[] = []
  for (const w of [...windows].sort((a, b) => b.score - a.score || a.start - b.start)) {
    if (chosen.length >= n) break
    if (chosen.every((c) => w.end <= c.start || w.start >= c.end)) chosen.push(w)
  }
  return chosen
}
