import { localTimestamp } from '../../db/time.js'
import { openAudio } from '../audioSource.js'
import { SPEECH_CLASS, SPEECH_DETECTION } from '../catalog.js'
import { describeFailure, tagClassNamed, targetMedia, type MediaRow } from '../discovery.js'
import { mediaFileNamed } from '../../named.js'
import type { JobType, RunningJob } from '../jobType.js'
import { openSpeechModel, SPEECH_MODEL, speechSpans, type SpeechSpan } from '../models/speech.js'
import { builtInModelProvenance } from '../provenance.js'
import { csvText, recordResult } from '../results.js'
import { secondsText } from '../../media/numberText.js'

// SpeechDetection (docs/decisions.md, "Speech"): the spans of human speech in the job's media files, found by the
// bundled speech detector (server/analysis/models/speech.ts), written as machine tags of the class `speech` (made
// in the library when it has none), each spanning the whole band of its file, its strength the mean chance of
// speech over it. One step a file; a resumed job goes on from the next. Each file listened to is marked scanned
// (media_files.speech_scanned_at), which a library's speech policy waits for (docs/decisions.md, "Speech policy");
// with unscannedOnly, the job listens only to files not marked, as the scans that policy queues do.

interface FileRow {
  media: MediaRow
  spans: number
  seconds: number
  note: string
}

export const speechDetectionJob: JobType<typeof SPEECH_DETECTION> = {
  ...SPEECH_DETECTION,
  async run(job) {
    const media = await targetMedia(job)
    // unscannedOnly: the files left are those not yet marked, so a resumed job starts again from the first of them
    const unscannedOnly = job.params.unscannedOnly === 1
    if (unscannedOnly) {
      const unscanned = await unscannedOf(job.db, media)
      media.splice(0, media.length, ...media.filter((m) => unscanned.has(m.id)))
      if (!media.length) {
        await recordResult(job, 'speech.csv', report([]), 'Every file had been listened to already: nothing to do')
        return
      }
    }
    if (!media.length)
      throw new Error(
        'This job has no media file to listen to: give mediaFileId, a library (and folder) holding media files, or add media files to its project.',
      )
    await job.setTotal(unscannedOnly ? job.job.num_completed + media.length : media.length)
    const tagSet = job.params.destinationTagSet
    const set = await job.db
      .selectFrom('tag_sets')
      .select('library_id')
      .where('id', '=', tagSet)
      .executeTakeFirstOrThrow()
    const provenance = builtInModelProvenance(SPEECH_DETECTION.name, SPEECH_MODEL, job)
    const session = await openSpeechModel(job.executionProvider)
    const rows: FileRow[] = []
    try {
      for (let i = unscannedOnly ? 0 : job.job.num_completed; i < media.length; i++) {
        job.signal.throwIfAborted()
        const m = media[i]
        let spans: SpeechSpan[] = []
        let nyquist = 0
        const row: FileRow = { media: m, spans: 0, seconds: 0, note: '' }
        try {
          const source = await openAudio(job.storage, m.file)
          nyquist = source.info.sampleRate / 2
          spans = await speechSpans(session, source, job.signal)
        } catch (e) {
          if (job.signal.aborted) throw e
          row.note = describeFailure(e)
        }
        row.spans = spans.length
        row.seconds = spans.reduce((n, s) => n + s.end - s.start, 0)
        await job.step(1, async (trx) => {
          if (!row.note)
            await trx
              .updateTable('media_files')
              .set({ speech_scanned_at: localTimestamp() })
              .where('id', '=', m.id)
              .execute()
          if (!spans.length) return
          const speech = await tagClassNamed(trx, job.job.user_id, set.library_id ?? m.library_id, SPEECH_CLASS)
          const now = localTimestamp()
          await trx
            .insertInto('tags')
            .values(
              spans.map((s) => ({
                user_id: job.job.user_id,
                creation_date: now,
                tag_set_id: tagSet,
                media_file_id: m.id,
                tag_class_id: speech,
                start_time: round(s.start),
                end_time: round(s.end),
                min_frequency: 0,
                max_frequency: nyquist,
                machine_tagged: true,
                strength: s.probability,
                provenance,
              })),
            )
            .execute()
        })
        rows.push(row)
      }
    } finally {
      await session.release()
    }
    const spans = rows.reduce((n, r) => n + r.spans, 0)
    const seconds = rows.reduce((n, r) => n + r.seconds, 0)
    await recordResult(
      job,
      'speech.csv',
      report(rows),
      `${rows.length} file${rows.length === 1 ? '' : 's'} listened to: ${spans} span${spans === 1 ? '' : 's'} of speech, ${secondsText(seconds)} s in all`,
    )
  },
}

function report(rows: FileRow[]): string {
  return csvText(
    ['mediaFile', 'alias', 'spans', 'seconds', 'note'],
    rows.map((r) => [
      r.media.id,
      r.media.alias,
      r.spans,
      r.seconds.toFixed(3),
      r.note ? `${mediaFileNamed(r.media)}: ${r.note}` : '',
    ]),
  )
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000

/** Of the media files, those no SpeechDetection job has listened to. */
async function unscannedOf(db: RunningJob['db'], media: MediaRow[]): Promise<Set<number>> {
  const ids = new Set<number>()
  for (let i = 0; i < media.length; i += 1000) {
    const rows = await db
      .selectFrom('media_files')
      .select('id')
      .where('speech_scanned_at', 'is', null)
      .where(
        'id',
        'in',
        media.slice(i, i + 1000).map((m) => m.id),
      )
      .execute()
    for (const r of rows) ids.add(r.id)
  }
  return ids
}
