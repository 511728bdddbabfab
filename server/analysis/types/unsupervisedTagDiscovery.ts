import { localTimestamp } from '../../db/time.js'
import { openAudio } from '../audioSource.js'
import { alreadyWritten, describeFailure, tagClassNamed, targetMedia, type MediaRow } from '../discovery.js'
import { shapeOf } from '../embedding.js'
import { mediaFileNamed } from '../../named.js'
import { audioSteps, FileProgress } from '../fileProgress.js'
import { forEachWindow, planFile } from '../scan.js'
import { UNSUPERVISED_TAG_DISCOVERY } from '../catalog.js'
import type { JobType } from '../jobType.js'
import { jobProvenance } from '../provenance.js'
import { newSeed, seededRandom } from '../random.js'
import { distance, spectraSettingsOf } from '../spectra.js'

// UnsupervisedTagDiscovery (7): sorts every window of windowSizeInSeconds
// (half a window apart) of the job's media into numberOfTagsToDiscover
// clusters of like sound: k-means on the windows' shapes, the features
// supervised discovery compares (docs/decisions.md §20: mel bands in Hz
// between the owner's spectra settings' frequencies, each band's background
// taken away, the course over time kept, scaled to unit length), so that
// neither sample rate nor loudness decides. Every window becomes a tag in
// destinationTagSet with machineTagged true, tag class `cluster-N` (created in
// the tag set's library, or the media file's when the tag set has none) and
// strength closer to 1 the nearer it lies to its cluster's centre. Its progress counts a step per second of
// each file's audio, as its blocks are read, and one for writing the tags.

export const unsupervisedTagDiscoveryJob: JobType<typeof UNSUPERVISED_TAG_DISCOVERY> = {
  ...UNSUPERVISED_TAG_DISCOVERY,
  async run(job) {
    if (alreadyWritten(job)) return
    const k = job.params.numberOfTagsToDiscover
    const size = job.params.windowSizeInSeconds
    const media = await targetMedia(job)
    if (!media.length)
      throw new Error(
        'This job has no media file to analyse: its mediaFileId, project or library (within its folder) names none its owner may read.',
      )
    const settings = await spectraSettingsOf(job.db, job.owner.id)
    const windows: Array<{ media: MediaRow; start: number; end: number; vector: Float64Array }> = []
    const sources = []
    for (const m of media) {
      try {
        sources.push({ media: m, source: await openAudio(job.storage, m.file) })
      } catch (e) {
        throw new Error(`${mediaFileNamed(m)}: ${describeFailure(e)}.`)
      }
    }
    await job.setTotal(sources.reduce((sum, s) => sum + audioSteps(s.source.info.duration), 0) + 1, true)
    // the bands every file has: the settings' range within the lowest half sample rate
    const nyquist = Math.min(...sources.map((s) => s.source.info.sampleRate / 2))
    const range = {
      lo: Math.min(settings.minFrequency, nyquist / 2),
      hi: settings.maxFrequency > settings.minFrequency ? Math.min(settings.maxFrequency, nyquist) : nyquist,
    }
    for (const { media: m, source } of sources) {
      const plan = planFile(source.info.sampleRate, source.info.frames, size)
      const { frameSeconds } = plan.grid
      const step = Math.max(1, Math.round(plan.windowFrames / 2))
      const progress = new FileProgress(job, plan.blocks, audioSteps(source.info.duration))
      await forEachWindow(
        source,
        range,
        plan,
        0,
        plan.blocks,
        step,
        (w, embedding) => {
          const start = Math.round(w * frameSeconds * 1000) / 1000
          windows.push({
            media: m,
            start,
            end: Math.round(Math.min(source.info.duration, (w + plan.windowFrames) * frameSeconds) * 1000) / 1000,
            vector: Float64Array.from(shapeOf(embedding)),
          })
        },
        job.signal,
        () => progress.blocksScanned(1),
      )
      await progress.finish()
    }
    if (windows.length < k)
      throw new Error(`Only ${windows.length} windows of ${size} s were found: too few for ${k} clusters.`)
    const seed = job.params.seed ?? newSeed()
    const { assignment, centres } = kMeans(
      windows.map((w) => w.vector),
      k,
      seededRandom(seed),
    )
    const set = await job.db
      .selectFrom('tag_sets')
      .select('library_id')
      .where('id', '=', job.params.destinationTagSet)
      .executeTakeFirstOrThrow()
    await job.step(1, async (trx) => {
      const classes = new Map<string, number>()
      const classOf = async (library: number, cluster: number) => {
        const key = `${library}/${cluster}`
        if (!classes.has(key))
          classes.set(key, await tagClassNamed(trx, job.job.user_id, library, `cluster-${cluster + 1}`))
        return classes.get(key)!
      }
      const now = localTimestamp()
      const provenance = jobProvenance(UNSUPERVISED_TAG_DISCOVERY.name, job, { seed })
      const rows = []
      for (let i = 0; i < windows.length; i++) {
        const w = windows[i]
        const c = assignment[i]
        rows.push({
          user_id: job.job.user_id,
          creation_date: now,
          tag_set_id: job.params.destinationTagSet,
          media_file_id: w.media.id,
          tag_class_id: await classOf(set.library_id ?? w.media.library_id, c),
          start_time: w.start,
          end_time: w.end,
          min_frequency: range.lo,
          max_frequency: range.hi,
          machine_tagged: true,
          strength: 1 / (1 + distance(w.vector, centres[c]) / Math.sqrt(w.vector.length)),
          provenance,
        })
      }
      for (let i = 0; i < rows.length; i += 1000)
        await trx
          .insertInto('tags')
          .values(rows.slice(i, i + 1000))
          .execute()
    })
  },
}

/** k-means with k-means++ starting centres; clusters numbered by their first window, so the result reads in time order. */
export function kMeans(points: Float64Array[], k: number, random: () => number) {
  const centres: Float64Array[] = [Float64Array.from(points[Math.floor(random() * points.length)])]
  while (centres.length < k) {
    const d = points.map((p) => Math.min(...centres.map((c) => distance(p, c))) ** 2)
    const total = d.reduce((a, b) => a + b, 0)
    let at = random() * total,
      i = 0
    while (i < points.length - 1 && at >= d[i]) {
      at -= d[i]
      i++
    }
    centres.push(Float64Array.from(points[total > 0 ? i : centres.length % points.length]))
  }
  let assignment = new Array<number>(points.length).fill(0)
  for (let round = 0; round < 100; round++) {
    const next = points.map((p) => {
      let best = 0
      for (let c = 1; c < k; c++) if (distance(p, centres[c]) < distance(p, centres[best])) best = c
      return best
    })
    const changed = next.some((c, i) => c !== assignment[i])
    assignment = next
    for (let c = 0; c < k; c++) {
      const members = points.filter((_, i) => assignment[i] === c)
      if (!members.length) continue
      const centre = new Float64Array(points[0].length)
      for (const m of members) for (let j = 0; j < centre.length; j++) centre[j] += m[j] / members.length
      centres[c] = centre
    }
    if (!changed && round > 0) break
  }
  // renumber clusters in order of first appearance
  const order: number[] = []
  for (const c of assignment) if (!order.includes(c)) order.push(c)
  for (let c = 0; c < k; c++) if (!order.includes(c)) order.push(c)
  return { assignment: assignment.map((c) => order.indexOf(c)), centres: order.map((c) => centres[c]) }
}
