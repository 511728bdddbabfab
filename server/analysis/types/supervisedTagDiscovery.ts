import type { Transaction } from 'kysely'
import { libraryAllows } from '../../access.js'
import type { DB } from '../../db/schema.js'
import { localTimestamp } from '../../db/time.js'
import { openAudio } from '../audioSource.js'
import { SUPERVISED_TAG_DISCOVERY, SUPERVISED_TAG_DISCOVERY_CHILD, type ParamsOf } from '../catalog.js'
import {
  alreadyWritten,
  describeFailure,
  discoveryReport,
  secondsOf,
  tagSetNamedIn,
  targetMedia,
} from '../discovery.js'
import { mediaFileNamed } from '../../named.js'
import { learnDetector, type ExampleTag, type Learned } from '../examples.js'
import { audioSteps, FileProgress } from '../fileProgress.js'
import type { JobType, RunningJob } from '../jobType.js'
import { jobProvenance } from '../provenance.js'
import { recordResult } from '../results.js'
import { reviewedTags } from '../reviews.js'
import { planFile, strongestApart, type Candidate } from '../scan.js'
import { splitBlocks } from '../threads.js'

/** A SupervisedTagDiscovery job or one of its children (the same parameters, and the child's media file). */
type DiscoveryJob = RunningJob<ParamsOf<typeof SUPERVISED_TAG_DISCOVERY>>

// SupervisedTagDiscovery (1): learns from the tags of sourceTagSet (labelled examples, and what is not a
// call: docs/decisions.md §20) and finds, in each target media file, at most numberOfTagsToDiscover windows
// of windowSizeInSeconds whose strength (the probability that they are a call of an example's class) is at
// least minimumStrength. They are written to destinationTagSet as machine tags with the class and frequency
// range of their class's examples. Reviewers' decisions on the destination's tags teach it too (yes:
// examples, no: counter-examples), and a run on a destination under review keeps the decided tags and
// replaces the undecided machine tags (learnFromReviews). The job splits into one SupervisedTagDiscoveryChild (11) per media file;
// its progress is theirs summed, each child counting a second of its file's audio a step and one more for writing its
// tags (known when the children are made, so the total never grows), and each child's result file `discovery.csv` says
// what it scanned.

const CHILD_TYPE = SUPERVISED_TAG_DISCOVERY_CHILD.id
/** tasks per analysis thread a long file is cut into (so threads finish together, and progress moves) */
const TASKS_PER_THREAD = 4

export const supervisedTagDiscoveryJob: JobType<typeof SUPERVISED_TAG_DISCOVERY> = {
  ...SUPERVISED_TAG_DISCOVERY,
  async run(job) {
    const media = await targetMedia(job)
    if (!media.length)
      throw new Error(
        'This job has no media file to search: give mediaFileId, a library (and folder) holding media files, or add media files to its project.',
      )
    const examples = await job.db
      .selectFrom('tags')
      .select('id')
      .where('tag_set_id', '=', job.params.sourceTagSet)
      .limit(1)
      .execute()
    if (!examples.length)
      throw new Error(
        `The sourceTagSet, ${await tagSetNamedIn(job.db, job.params.sourceTagSet)}, has no tags to learn from.`,
      )
    const given = Object.fromEntries(Object.entries(job.params).map(([k, v]) => [k, String(v)]))
    const seconds = await secondsOf(job, media)
    await job.spawnChildren(
      media.map((m) => ({
        name: `${job.job.name || 'discovery'}: ${mediaFileNamed(m)}`.slice(0, 255),
        typeId: CHILD_TYPE,
        parameters: { ...given, mediaFileId: String(m.id) },
        numToComplete: childSteps(seconds.get(m.id) ?? 0),
      })),
    )
  },
}

export const supervisedTagDiscoveryChildJob: JobType<typeof SUPERVISED_TAG_DISCOVERY_CHILD> = {
  ...SUPERVISED_TAG_DISCOVERY_CHILD,
  async run(job) {
    if (alreadyWritten(job)) return
    const [target] = await targetMedia(job)
    const windowSeconds = job.params.windowSizeInSeconds
    const keep = job.params.numberOfTagsToDiscover
    const minimumStrength = job.params.minimumStrength
    const learned = await sharedDetector(job)
    const decided = await decidedTags(job, target.id)
    // a window on a tag a reviewer decided is that tag: it is kept, never written again; the examples are tagged already
    const taken = {
      decided: decided.map((d) => ({ start: d.start_time, end: d.end_time })),
      examples: learned.exampleSpans.get(target.id) ?? [],
    }
    let source
    try {
      source = await openAudio(job.storage, target.file)
    } catch (e) {
      // a file that cannot be decoded is reported, and the job goes on with the others
      const reason = describeFailure(e)
      await recordResult(
        job,
        'discovery.csv',
        discoveryReport([{ mediaFile: target.id, alias: target.alias, windows: 0, best: null, tags: 0, note: reason }]),
        `${mediaFileNamed(target)}: not analysed: ${reason}`,
      )
      return
    }
    const { info } = source
    const plan = planFile(info.sampleRate, info.frames, windowSeconds)
    const parts = splitBlocks(plan.blocks, Math.max(1, job.analysis.threads) * TASKS_PER_THREAD)
    // the total the parent gave when it made this job (a job made without one counts its own file)
    const total = job.job.num_to_complete > 0 ? job.job.num_to_complete : childSteps(info.duration)
    await job.setTotal(total, true)
    const progress = new FileProgress(job, plan.blocks, total - 1)
    let windows = 0,
      best = -1
    const candidates: Candidate[] = []
    await Promise.all(
      parts.map(async ([fromBlock, toBlock]) => {
        const r = await job.analysis.scan(
          {
            storage: job.config,
            file: target.file,
            detector: learned.detector,
            plan,
            fromBlock,
            toBlock,
            keep,
            minimumStrength,
            taken,
          },
          job.signal,
          (blocks) => progress.blocksScanned(blocks),
        )
        windows += r.windows
        best = Math.max(best, r.best)
        candidates.push(...r.candidates)
      }),
    )
    await progress.finish()
    const chosen = strongestApart(candidates, keep)
    const nyquist = info.sampleRate / 2
    const tagSet = job.params.destinationTagSet
    const note = plan.fitted ? `the file is shorter than the window: one window of ${round(plan.windowSeconds)} s` : ''
    const report = discoveryReport([
      { mediaFile: target.id, alias: target.alias, windows, best: best < 0 ? null : best, tags: chosen.length, note },
    ])
    await job.step(1, async (trx) => {
      if (await underReview(job))
        await replaceUndecided(
          trx,
          tagSet,
          target.id,
          learned.detector.classes.map((c) => c.tagClass),
        )
      if (chosen.length) {
        const now = localTimestamp()
        const provenance = jobProvenance(SUPERVISED_TAG_DISCOVERY.name, job)
        await trx
          .insertInto('tags')
          .values(
            chosen.map((c) => {
              const model = learned.detector.classes[c.classIndex]
              const banded = model.maxFrequency > model.minFrequency
              return {
                user_id: job.job.user_id,
                creation_date: now,
                tag_set_id: tagSet,
                media_file_id: target.id,
                tag_class_id: model.tagClass,
                start_time: round(c.start),
                end_time: round(Math.min(c.end, info.duration)),
                min_frequency: banded ? Math.min(model.minFrequency, nyquist) : 0,
                max_frequency: banded ? Math.min(model.maxFrequency, nyquist) : nyquist,
                machine_tagged: true,
                strength: c.strength * job.params.weight,
                provenance,
              }
            }),
          )
          .execute()
      }
    })
    await recordResult(
      job,
      'discovery.csv',
      report,
      `${mediaFileNamed(target)}: ${windows} windows scored, best ${best < 0 ? '-' : best.toFixed(3)}, ${chosen.length} tag${chosen.length === 1 ? '' : 's'}${note ? `; ${note}` : ''}`,
    )
  },
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000

/** A child's steps: a second of its file's audio each, and one for writing its tags. */
const childSteps = (seconds: number) => audioSteps(seconds) + 1

const learnsFromReviews = (job: DiscoveryJob) => job.params.learnFromReviews === 1

/** The tags of the destination on a media file that a reviewer decided (none when the job does not learn from reviews). */
async function decidedTags(job: DiscoveryJob, mediaFile: number) {
  if (!learnsFromReviews(job)) return []
  return job.db
    .selectFrom('tags as t')
    .select(['t.id', 't.start_time', 't.end_time'])
    .where('t.tag_set_id', '=', job.params.destinationTagSet)
    .where('t.media_file_id', '=', mediaFile)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('tag_reviews as r').select('r.id').whereRef('r.tag_id', '=', 't.id')),
    )
    .execute()
}

/** Whether a reviewer decided any tag of the destination (never, when the job does not learn from reviews). */
async function underReview(job: DiscoveryJob): Promise<boolean> {
  if (!learnsFromReviews(job)) return false
  const found = await job.db
    .selectFrom('tags as t')
    .select('t.id')
    .where('t.tag_set_id', '=', job.params.destinationTagSet)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('tag_reviews as r').select('r.id').whereRef('r.tag_id', '=', 't.id')),
    )
    .limit(1)
    .executeTakeFirst()
  return found !== undefined
}

/**
 * A run on a destination under review replaces, in each file it searches, the machine tags of its classes that
 * nobody decided (docs/decisions.md §20), whether or not that file holds a decided tag: re-running writes nothing twice.
 */
async function replaceUndecided(
  trx: Transaction<DB>,
  tagSet: number,
  mediaFile: number,
  classes: number[],
): Promise<void> {
  await trx
    .deleteFrom('tags')
    .where('tag_set_id', '=', tagSet)
    .where('media_file_id', '=', mediaFile)
    .where('machine_tagged', '=', true)
    .where('tag_class_id', 'in', classes)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('tag_reviews as r').select('r.id').whereRef('r.tag_id', '=', 'tags.id'))),
    )
    .execute()
}

/** The children of one discovery job learn from the same examples: the worker learns them once for all the children
 * it runs (as the tag set was when the first of them started). */
function sharedDetector(job: DiscoveryJob): Promise<Learned> {
  const key = [
    job.job.parent_job_id ?? `self-${job.job.id}`,
    job.params.sourceTagSet,
    job.params.destinationTagSet,
    job.params.windowSizeInSeconds,
    job.params.learnFromReviews,
  ].join(':')
  return job.learned.once(key, () => learnFromTagSet(job))
}

/** Every tag of the source tag set on media the owner can read is an example (at most 10,000). */
async function learnFromTagSet(job: DiscoveryJob): Promise<Learned> {
  const rows = await job.db
    .selectFrom('tags as t')
    .innerJoin('media_files as m', 'm.id', 't.media_file_id')
    .select(['t.tag_class_id', 't.start_time', 't.end_time', 't.min_frequency', 't.max_frequency', 'm.id', 'm.file'])
    .where('t.tag_set_id', '=', job.params.sourceTagSet)
    .where((eb) => libraryAllows(eb, job.owner, eb.ref('m.library_id'), 'read'))
    .orderBy('m.id')
    .orderBy('t.id')
    .limit(10_000)
    .execute()
  if (!rows.length)
    throw new Error(
      `The sourceTagSet, ${await tagSetNamedIn(job.db, job.params.sourceTagSet)}, has no tags on readable media to learn from.`,
    )
  const examples: ExampleTag[] = rows.map((t) => ({
    mediaFile: t.id,
    file: t.file,
    tagClass: t.tag_class_id,
    start: t.start_time,
    end: t.end_time,
    minFrequency: t.min_frequency,
    maxFrequency: t.max_frequency,
  }))
  const rejected: ExampleTag[] = []
  if (learnsFromReviews(job)) {
    const reviewed = await reviewedTags(job.db, job.params.destinationTagSet)
    const files = new Map(
      (reviewed.length
        ? await job.db
            .selectFrom('media_files as m')
            .select(['m.id', 'm.file'])
            .where('m.id', 'in', [...new Set(reviewed.map((r) => r.mediaFile))])
            .where((eb) => libraryAllows(eb, job.owner, eb.ref('m.library_id'), 'read'))
            .execute()
        : []
      ).map((m) => [m.id, m.file]),
    )
    for (const r of reviewed) {
      const file = files.get(r.mediaFile)
      if (!file || r.consensus === 'unsure') continue
      const tag: ExampleTag = {
        mediaFile: r.mediaFile,
        file,
        tagClass: r.namedClass ?? r.tagClass,
        start: r.startTime,
        end: r.endTime,
        minFrequency: r.minFrequency,
        maxFrequency: r.maxFrequency,
        alone: true,
      }
      // yes: an example of its class; no: a counter-example, or an example of the class the reviewers named
      if (r.consensus === 'yes' || r.namedClass !== null) examples.push(tag)
      else rejected.push(tag)
    }
  }
  const skipped: Array<{ file: number; reason: Error }> = []
  const searched = await targetMedia(job, { wholeSearch: true })
  const learned = await learnDetector(
    job.storage,
    examples,
    rejected,
    job.params.windowSizeInSeconds,
    searched,
    (file, reason) => skipped.push({ file, reason }),
    job.signal,
  )
  if (skipped.length) {
    const aliases = new Map(
      (
        await job.db
          .selectFrom('media_files')
          .select(['id', 'alias'])
          .where(
            'id',
            'in',
            skipped.map((s) => s.file),
          )
          .execute()
      ).map((m) => [m.id, m.alias]),
    )
    const lines = skipped.map(
      (s) => `${mediaFileNamed({ id: s.file, alias: aliases.get(s.file) })}: ${describeFailure(s.reason)}`,
    )
    await recordResult(
      job,
      'examples-skipped.txt',
      `${lines.join('\n')}\n`,
      `${skipped.length} example file(s) could not be decoded`,
    )
  }
  return learned
}
