import { libraryAllows } from '../../access.js'
import { localTimestamp } from '../../db/time.js'
import { TRAIN_CLASSIFIER } from '../catalog.js'
import { tagSetNamed } from '../../named.js'
import type { JobType } from '../jobType.js'
import { jobProvenance } from '../provenance.js'
import { newSeed, seededRandom } from '../random.js'
import { csvText, recordResult } from '../results.js'
import { reviewedTags } from '../reviews.js'
import { learnFromDecisions, scoreStored } from '../similar/classifier.js'
import { kindNamed, kindText } from '../similar/search.js'
import { embeddingRows } from '../similar/store.js'

// TrainClassifier (docs/decisions.md §35): a classifier per class learnt from the decisions on the source tag set's
// tags over the library's stored embeddings of a kind, every stored window of the library scored, and the strongest
// written to the destination tag set as machine tags. Stored vectors only: no audio is read. One step.

export const trainClassifierJob: JobType<typeof TRAIN_CLASSIFIER> = {
  ...TRAIN_CLASSIFIER,
  async run(job) {
    if (job.job.num_to_complete > 0 && job.job.num_completed >= job.job.num_to_complete) return
    const source = job.params.sourceTagSet
    const destination = job.params.destinationTagSet
    const kind = await kindNamed(job.db, job.params.kind)
    if (!kind) throw new Error(`kind names no model: "${job.params.kind}" (builtin, or a model's name or id).`)
    const set = await job.db
      .selectFrom('tag_sets')
      .select(['library_id', 'name'])
      .where('id', '=', source)
      .executeTakeFirstOrThrow()
    const sourceNamed = tagSetNamed({ id: source, name: set.name })
    const decided = await reviewedTags(job.db, source)
    if (!decided.some((t) => t.consensus === 'yes'))
      throw new Error(`${sourceNamed} has no tag decided yes: mark the calls sought yes (tagReview) first.`)
    const libraryId =
      set.library_id ??
      (
        await job.db
          .selectFrom('media_files')
          .select('library_id')
          .where('id', '=', decided[0].mediaFile)
          .executeTakeFirstOrThrow()
      ).library_id
    const readable = await job.db
      .selectFrom('libraries as l')
      .select('l.id')
      .where('l.id', '=', libraryId)
      .where((eb) => libraryAllows(eb, job.owner, eb.ref('l.id'), 'read'))
      .executeTakeFirst()
    // the library's name is not said: the owner may not read it
    if (!readable)
      throw new Error(
        `The job's owner may not read library ${libraryId}, whose windows the decisions of ${sourceNamed} are on.`,
      )
    await job.setTotal(1)
    const seed = job.params.seed ?? newSeed()
    const classes = await learnFromDecisions(job.db, libraryId, kind, decided, seededRandom(seed))
    if (!classes.length)
      throw new Error(
        `No tag decided yes in ${sourceNamed} lies on a stored window of kind ${await kindText(job.db, kind)}: run EmbedAudio over their files first.`,
      )
    const rows = await embeddingRows(job.db, libraryId, kind)
    const { found, scored } = await scoreStored(
      job.db,
      rows,
      classes,
      job.params.numberOfTagsToWrite,
      job.params.minimumStrength,
      decided,
      job.signal,
    )
    const provenance = jobProvenance(TRAIN_CLASSIFIER.name, job, { seed })
    const byClass = new Map(classes.map((c) => [c.tagClass, c]))
    await job.step(1, async (trx) => {
      const now = localTimestamp()
      const values = found.map((f) => ({
        user_id: job.job.user_id,
        creation_date: now,
        tag_set_id: destination,
        media_file_id: f.mediaFile,
        tag_class_id: f.tagClass,
        start_time: round(f.start),
        end_time: round(f.end),
        min_frequency: byClass.get(f.tagClass)!.minFrequency,
        max_frequency: byClass.get(f.tagClass)!.maxFrequency,
        machine_tagged: true,
        strength: f.strength,
        provenance,
      }))
      for (let i = 0; i < values.length; i += 1000)
        await trx
          .insertInto('tags')
          .values(values.slice(i, i + 1000))
          .execute()
    })
    await recordResult(
      job,
      'classifier.csv',
      csvText(
        ['tagClass', 'positiveWindows', 'tagsWritten'],
        classes.map((c) => [c.tagClass, c.positives, found.filter((f) => f.tagClass === c.tagClass).length]),
      ),
      `${await kindText(job.db, kind)}: ${classes.length} class${classes.length === 1 ? '' : 'es'} learnt from ${decided.length} decided tags; ${scored} stored windows scored, ${found.length} tags written`,
    )
  },
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000
