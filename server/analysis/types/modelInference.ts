import { availableParallelism } from 'node:os'
import type { Selectable, Transaction } from 'kysely'
import type { ModelsTable } from '../../db/analysisTables.js'
import type { DB } from '../../db/schema.js'
import { localTimestamp } from '../../db/time.js'
import { readWhole } from '../../storage/index.js'
import { openAudio } from '../audioSource.js'
import { MODEL_INFERENCE, type ParamsOf } from '../catalog.js'
import { describeFailure, tagClassNamed, targetMedia, type MediaRow } from '../discovery.js'
import { mediaFileNamed } from '../../named.js'
import type { JobType, RunningJob } from '../jobType.js'
import { labelsOf } from '../labelsFile.js'
import type { Manifest } from '../models/manifest.js'
import { openModel } from '../models/onnx.js'
import { hopSamples, modelOverFile } from '../models/overFile.js'
import { ModelEmbeddings, type FileEmbeddings } from '../similar/embedFile.js'
import { refreshIndex } from '../similar/libraryIndex.js'
import { modelKind, storeEmbeddings } from '../similar/store.js'
import { modelProvenance } from '../provenance.js'
import { csvText, recordResult } from '../results.js'

/** A ModelInference job, its parameters as the catalog declares them. */
type InferenceJob = RunningJob<ParamsOf<typeof MODEL_INFERENCE>>

// ModelInference (docs/decisions.md, "Models"): an operator's ONNX model over the job's media files. Each file is
// decoded chunk by chunk, resampled to the model's rate, cut into windows every `hopInSeconds`, and run through the
// model a batch of windows at a time; every window's score at or above its class's threshold (the model's, else
// minimumStrength) becomes a machine tag of that class, its strength the score, with the model's provenance. Memory
// holds a chunk and a batch, whatever the file's length. One step a file; a resumed job goes on from the next.

type ModelRow = Selectable<ModelsTable>

/** A file's detections, kept in typed arrays (window start and end, the label's index, the score: 24 bytes each)
 * rather than an object each, so that a day's recording of a busy dawn chorus holds megabytes, not a heap's worth. */
class Detections {
  starts = new Float64Array(1024)
  ends = new Float64Array(1024)
  labels = new Int32Array(1024)
  scores = new Float32Array(1024)
  length = 0

  push(start: number, end: number, label: number, score: number): void {
    if (this.length === this.starts.length) {
      const grown = <A extends Float64Array | Int32Array | Float32Array>(a: A): A => {
        const b = new (a.constructor as new (n: number) => A)(a.length * 2)
        b.set(a)
        return b
      }
      this.starts = grown(this.starts)
      this.ends = grown(this.ends)
      this.labels = grown(this.labels)
      this.scores = grown(this.scores)
    }
    const i = this.length++
    this.starts[i] = start
    this.ends[i] = end
    this.labels[i] = label
    this.scores[i] = score
  }
}

interface Scanned {
  detections: Detections
  windows: number
  sampleRate: number
  duration: number
  embeddings: FileEmbeddings | null
}
interface FileRow {
  media: MediaRow
  windows: number
  detections: number
  written: number
  unclassed: number
  note: string
}

export const modelInferenceJob: JobType<typeof MODEL_INFERENCE> = {
  ...MODEL_INFERENCE,
  async run(job) {
    const model = await job.db.selectFrom('models').selectAll().where('id', '=', job.params.model).executeTakeFirst()
    if (!model) throw new Error(`Model ${job.params.model} (model) was deleted before the job ran.`)
    const manifest = model.manifest
    const wanted = await speciesOf(job, manifest)
    if (keepsEmbeddings(job) && !manifest.outputs.embedding) {
      throw new Error(
        `Model ${model.name} has no embedding output to keep: its manifest names none (outputs.embedding); run it without keepEmbeddings.`,
      )
    }
    const destination = await job.db
      .selectFrom('tag_sets')
      .select(['id', 'library_id'])
      .where('id', '=', job.params.destinationTagSet)
      .executeTakeFirstOrThrow()
    const media = await targetMedia(job)
    if (!media.length)
      throw new Error(
        'This job has no media file to run the model on: give mediaFileId, a library (and folder) holding media files, or add media files to its project.',
      )
    await job.setTotal(media.length)
    const bytes = await readWhole(job.storage, model.file)
    const session = await openModel(bytes, Math.max(1, availableParallelism() - 1), job.executionProvider)
    const rows: FileRow[] = []
    try {
      for (let i = job.job.num_completed; i < media.length; i++) {
        job.signal.throwIfAborted()
        const m = media[i]
        const row: FileRow = { media: m, windows: 0, detections: 0, written: 0, unclassed: 0, note: '' }
        let found = new Detections()
        let nyquist = manifest.sampleRate / 2
        let scanned: Scanned | null = null
        try {
          scanned = await scanFile(job, session, manifest, m, wanted)
          found = scanned.detections
          row.windows = scanned.windows
          nyquist = Math.min(nyquist, scanned.sampleRate / 2)
        } catch (e) {
          if (job.signal.aborted) throw e
          row.note = describeFailure(e)
        }
        row.detections = found.length
        await job.step(1, async (trx) => {
          const written = await writeTags(trx, job, model, destination, m, found, nyquist, manifest.labels)
          const e = scanned?.embeddings
          if (e && e.windows) {
            await storeEmbeddings(trx, {
              mediaFile: m.id,
              library: m.library_id,
              kind: modelKind(model.id),
              windowSeconds: manifest.windowSeconds,
              hopSeconds: job.params.hopInSeconds ?? manifest.windowSeconds,
              lengthSeconds: e.lengthSeconds,
              stepSeconds: e.stepSeconds,
              duration: scanned!.duration,
              dimensions: e.dimensions,
              vectors: e.vectors,
            })
          }
          row.written = written
          row.unclassed = found.length - written
        })
        rows.push(row)
      }
    } finally {
      await session.release()
    }
    // kept embeddings: each library's index of the model's kind holds what is stored now, as after EmbedAudio
    if (keepsEmbeddings(job))
      for (const library of new Set(media.map((m) => m.library_id)))
        await refreshIndex(job.db, job.storage, library, modelKind(model.id))
    const total = rows.reduce((n, r) => n + r.written, 0)
    const unclassed = rows.reduce((n, r) => n + r.unclassed, 0)
    await recordResult(
      job,
      'detections.csv',
      report(rows),
      `${model.name}: ${rows.length} file${rows.length === 1 ? '' : 's'}, ${total} tag${total === 1 ? '' : 's'} written` +
        (unclassed
          ? `; ${unclassed} detections of labels the library has no class for were not written (createClasses=1 creates them)`
          : ''),
    )
  },
}

/** The labels the job keeps (its `species`, listed or in a file of labels, checked against the model's labels), or
 * null: every label. */
async function speciesOf(job: RunningJob, manifest: Manifest): Promise<Set<string> | null> {
  const given = job.params.species
  if (given === undefined) return null
  const labels = await labelsOf(job.db, job.storage, job.owner, String(given))
  if (!labels.length) throw new Error(`species names no label: ${String(given)} is empty.`)
  const known = new Set(manifest.labels)
  const unknown = labels.filter((l) => !known.has(l))
  if (unknown.length)
    throw new Error(
      `species names ${unknown.length === 1 ? 'a label' : 'labels'} the model does not have: ${unknown.slice(0, 5).join('; ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}.`,
    )
  return new Set(labels)
}

/** The detections in one media file, and how many windows were scored. */
async function scanFile(
  job: InferenceJob,
  session: Awaited<ReturnType<typeof openModel>>,
  manifest: Manifest,
  m: MediaRow,
  wanted: Set<string> | null,
): Promise<Scanned> {
  const source = await openAudio(job.storage, m.file)
  const rate = manifest.sampleRate
  const hop = hopSamples(manifest, job.params.hopInSeconds)
  const threshold = (label: string) => manifest.thresholds?.[label] ?? job.params.minimumStrength
  const duration = source.info.duration
  const detections = new Detections()
  const kept = keepsEmbeddings(job) ? new ModelEmbeddings(manifest.outputs.embedding!) : null
  let windows = 0
  await modelOverFile(
    source,
    session,
    manifest,
    hop,
    (batch, out) => {
      windows += batch.starts.length
      kept?.add(batch, out)
      if (!manifest.outputs.scores) return
      const scores = out[manifest.outputs.scores].data as Float32Array
      const classes = manifest.labels.length
      batch.starts.forEach((s, w) => {
        const start = s / rate
        const end = Math.min(start + manifest.windowSeconds, duration)
        if (end <= start) return
        for (let c = 0; c < classes; c++) {
          const label = manifest.labels[c]
          const score = scores[w * classes + c]
          if (score >= threshold(label) && (!wanted || wanted.has(label))) detections.push(start, end, c, score)
        }
      })
    },
    job.signal,
  )
  return {
    detections,
    windows,
    sampleRate: source.info.sampleRate,
    duration,
    embeddings: kept?.result(manifest, hop) ?? null,
  }
}

/** With keepEmbeddings: each window's embedding is stored as EmbedAudio stores a model's (docs/decisions.md §35). */
const keepsEmbeddings = (job: RunningJob) => job.params.keepEmbeddings === 1

/** The detections as machine tags in the destination tag set, each of its label's class; the number written.
 * Labels without a class in the file's library are created with createClasses=1, else left out. */
async function writeTags(
  trx: Transaction<DB>,
  job: RunningJob,
  model: ModelRow,
  destination: { id: number; library_id: number | null },
  m: MediaRow,
  found: Detections,
  nyquist: number,
  labels: readonly string[],
): Promise<number> {
  if (!found.length) return 0
  const tagSet = destination.id
  const library = destination.library_id ?? m.library_id
  const create = job.params.createClasses === 1
  const classOf = new Map<number, number | null>()
  for (const c of new Set(found.labels.subarray(0, found.length))) {
    classOf.set(
      c,
      create
        ? await tagClassNamed(trx, job.job.user_id, library, labels[c])
        : await existingClass(trx, library, labels[c]),
    )
  }
  const provenance = modelProvenance(model, job)
  const now = localTimestamp()
  let written = 0
  // a thousand rows at a time, each part's rows made when it is sent
  for (let from = 0; from < found.length; from += 1000) {
    const rows = []
    for (let i = from; i < Math.min(found.length, from + 1000); i++) {
      const tagClass = classOf.get(found.labels[i])
      if (tagClass == null) continue
      rows.push({
        user_id: job.job.user_id,
        creation_date: now,
        tag_set_id: tagSet,
        media_file_id: m.id,
        tag_class_id: tagClass,
        start_time: round(found.starts[i]),
        end_time: round(found.ends[i]),
        min_frequency: 0,
        max_frequency: nyquist,
        machine_tagged: true,
        strength: found.scores[i],
        provenance,
      })
    }
    if (rows.length) await trx.insertInto('tags').values(rows).execute()
    written += rows.length
  }
  return written
}

/** The library's class named `label`, or the one class differing from it only in case; null when there is none. */
async function existingClass(trx: Transaction<DB>, library: number, label: string): Promise<number | null> {
  const alike = await trx
    .selectFrom('tag_classes')
    .select(['id', 'class_name'])
    .where('library_id', '=', library)
    .where((eb) => eb(eb.fn('lower', ['class_name']), '=', label.toLowerCase()))
    .execute()
  return (alike.find((c) => c.class_name === label) ?? (alike.length === 1 ? alike[0] : undefined))?.id ?? null
}

function report(rows: FileRow[]): string {
  return csvText(
    ['mediaFile', 'alias', 'windowsScored', 'detections', 'tagsWritten', 'withoutClass', 'note'],
    rows.map((r) => [
      r.media.id,
      r.media.alias,
      r.windows,
      r.detections,
      r.written,
      r.unclassed,
      r.note ? `${mediaFileNamed(r.media)}: ${r.note}` : '',
    ]),
  )
}

const round = (seconds: number) => Math.round(seconds * 1e6) / 1e6
