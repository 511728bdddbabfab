import { availableParallelism } from 'node:os'
import type { InferenceSession } from 'onnxruntime-node'
import { readWhole } from '../../storage/index.js'
import { openAudio } from '../audioSource.js'
import { EMBED_AUDIO, type ParamsOf } from '../catalog.js'
import { describeFailure, targetMedia } from '../discovery.js'
import { mediaFileNamed } from '../../named.js'
import type { JobType, RunningJob } from '../jobType.js'
import type { Manifest } from '../models/manifest.js'
import { openModel } from '../models/onnx.js'
import { csvText, recordResult } from '../results.js'
import { embedBuiltin, embedWithModel, type FileEmbeddings } from '../similar/embedFile.js'
import { refreshIndex } from '../similar/libraryIndex.js'
import { BUILTIN_KIND, isStored, modelKind, storeEmbeddings } from '../similar/store.js'
import { kindText } from '../similar/search.js'

/** An EmbedAudio job, its parameters as the catalog declares them. */
type EmbedJob = RunningJob<ParamsOf<typeof EMBED_AUDIO>>

// EmbedAudio (docs/decisions.md §35): every window's embedding of the job's media files, stored as float16 once
// per media file, kind, window and hop (a re-run, or a second job over the same files, skips what is stored), then
// each library's index of the kind brought up to date. One step a file; a resumed job goes on from the next.

interface FileRow {
  mediaFile: number
  alias: string
  windows: number
  note: string
}

/** What embeds a file, and the kind, window and hop it is stored under. */
interface Embedder {
  kind: string
  windowSeconds: number
  hopSeconds: number
  embed(job: RunningJob, file: string): Promise<FileEmbeddings>
  release(): Promise<void>
}

async function embedderOf(job: EmbedJob): Promise<Embedder> {
  const modelId = job.params.model
  const hop = job.params.hopInSeconds
  if (modelId === undefined) {
    const window = job.params.windowSizeInSeconds
    const hopSeconds = hop ?? window / 2
    return {
      kind: BUILTIN_KIND,
      windowSeconds: window,
      hopSeconds,
      embed: async (j, file) => embedBuiltin(await openAudio(j.storage, file), window, hopSeconds, j.signal),
      release: async () => {},
    }
  }
  const model = await job.db.selectFrom('models').selectAll().where('id', '=', modelId).executeTakeFirst()
  if (!model) throw new Error(`Model ${modelId} (model) was deleted before the job ran.`)
  const manifest: Manifest = model.manifest
  if (!manifest.outputs.embedding)
    throw new Error(`Model ${model.name} has no embedding output: its manifest names none (outputs.embedding).`)
  const session: InferenceSession = await openModel(
    await readWhole(job.storage, model.file),
    Math.max(1, availableParallelism() - 1),
  )
  return {
    kind: modelKind(model.id),
    windowSeconds: manifest.windowSeconds,
    hopSeconds: hop ?? manifest.windowSeconds,
    embed: async (j, file) => embedWithModel(await openAudio(j.storage, file), session, manifest, hop, j.signal),
    release: () => session.release(),
  }
}

export const embedAudioJob: JobType<typeof EMBED_AUDIO> = {
  ...EMBED_AUDIO,
  async run(job) {
    const media = await targetMedia(job)
    if (!media.length)
      throw new Error(
        'This job has no media file to embed: give mediaFileId, a library (and folder) holding media files, or add media files to its project.',
      )
    await job.setTotal(media.length)
    const embedder = await embedderOf(job)
    const rows: FileRow[] = []
    let stored = 0
    try {
      for (let i = job.job.num_completed; i < media.length; i++) {
        job.signal.throwIfAborted()
        const m = media[i]
        const row: FileRow = { mediaFile: m.id, alias: m.alias, windows: 0, note: '' }
        rows.push(row)
        if (await isStored(job.db, m.id, embedder.kind, embedder.windowSeconds, embedder.hopSeconds)) {
          row.note = 'stored already'
          await job.step(1)
          continue
        }
        let found: FileEmbeddings | null = null
        let duration = 0
        try {
          duration = (await openAudio(job.storage, m.file)).info.duration
          found = await embedder.embed(job, m.file)
        } catch (e) {
          if (job.signal.aborted) throw e
          row.note = `${mediaFileNamed(m)}: ${describeFailure(e)}`
        }
        await job.step(1, async (trx) => {
          if (!found) return
          row.windows = found.windows
          const id = await storeEmbeddings(trx, {
            mediaFile: m.id,
            library: m.library_id,
            kind: embedder.kind,
            windowSeconds: embedder.windowSeconds,
            hopSeconds: embedder.hopSeconds,
            lengthSeconds: found.lengthSeconds,
            stepSeconds: found.stepSeconds,
            duration,
            dimensions: found.dimensions,
            vectors: found.vectors,
          })
          if (id === null) row.note = 'stored already'
          else stored++
        })
      }
    } finally {
      await embedder.release()
    }
    // every library whose files this job covers: its index holds what is stored now
    for (const library of new Set(media.map((m) => m.library_id)))
      await refreshIndex(job.db, job.storage, library, embedder.kind)
    const windows = rows.reduce((n, r) => n + r.windows, 0)
    await recordResult(
      job,
      'embeddings.csv',
      csvText(
        ['mediaFile', 'alias', 'windows', 'note'],
        rows.map((r) => [r.mediaFile, r.alias, r.windows, r.note]),
      ),
      `${await kindText(job.db, embedder.kind)}: ${stored} file${stored === 1 ? '' : 's'} embedded (${windows} windows), ${rows.length - stored} skipped or stored already`,
    )
  },
}
