import { wireTimestamp } from '../db/time.js'
import { ApiError, badRequest, MSG } from '../http/errors.js'
import type { Endpoint } from '../http/endpoint.js'
import { parseValue, type Fields } from '../http/fields.js'
import { UnsupportedAudioError } from '../analysis/audio.js'
import { openAudio } from '../analysis/audioSource.js'
import {
  decibels,
  frameLayout,
  framesOf,
  spectraSettingsOf,
  spectrogramOf,
  type FrameLayout,
  type Spectrogram,
} from '../analysis/spectra.js'
import { outOfBounds } from '../media/extent.js'
import { mediaFileNamed } from '../named.js'
import { pythonFloat, secondsText } from '../media/numberText.js'
import { overviewColumns } from '../media/overview.js'
import { frameSpans, silencedChunks } from '../media/silence.js'
import { hearingOf } from '../media/speechPolicy.js'
import { STATISTICS, type Statistic } from '../media/pictureColumns.js'
import {
  columnsPicture,
  DEFAULT_PLOT_COLUMNS,
  pictureColumns,
  PICTURE_WIDTH,
  type PictureColumns,
  type PictureTag,
} from '../media/spectrogramPicture.js'
import { mediaFiles } from './mediaFile.js'
import { API, type Db } from './resource.js'
import { tagSets } from './tagSet.js'

// GET mediaFile/{Id}/spectra/?startTime=&endTime=&format=json|png&tagSet=&width=&statistic= (extension):
// the spectrogram of a readable media file (WAV, FLAC or MP3), computed with
// the caller's UserSettings by the same code the discovery jobs use. JSON
// holds frames × bands of dB values, for a stretch of at most MAX_FRAMES; png
// is a picture of a stretch of any length (the whole file by default) with a
// time axis (clock time when realStartTime is known), a kHz axis, a colour
// map, and the tags of the tag set as labelled boxes, its frames computed
// chunk by chunk and folded into the picture's columns (README, "Spectrograms").

const MAX_FRAMES = 100_000

const query: Fields = {
  startTime: { type: 'float', min: 0 },
  endTime: { type: 'float', min: 0 },
  format: { type: 'choice', choices: ['json', 'png'] },
  tagSet: { type: 'pk', target: () => tagSets, description: 'png: draw the tags of this tag set on the media file' },
  width: {
    type: 'integer',
    min: PICTURE_WIDTH.min,
    max: PICTURE_WIDTH.max,
    description: `png: the picture's width in pixels, ${PICTURE_WIDTH.min} to ${PICTURE_WIDTH.max} (default: ${PICTURE_WIDTH.default}, narrower for a stretch of fewer than ${DEFAULT_PLOT_COLUMNS} frames)`,
  },
  statistic: {
    type: 'choice',
    choices: STATISTICS,
    description:
      'png: what a pixel column shows of the frames it covers: max (the loudest, default) or mean (their mean energy)',
  },
}

interface Asked {
  startTime?: number
  endTime?: number
  format?: string
  tagSet?: number
  width?: number
  statistic?: Statistic
}

const WIDTH_REFUSAL = `A picture is ${PICTURE_WIDTH.min} to ${PICTURE_WIDTH.max} pixels wide: give a whole number between them.`

/** at most this many tags are drawn on one picture */
const MAX_TAGS = 5000

/** The tags of a tag set on a media file overlapping [start, end] seconds, labelled with their class name. */
async function tagsToDraw(
  db: Db,
  tagSet: number,
  mediaFile: number,
  start: number,
  end: number,
): Promise<PictureTag[]> {
  const rows = await db
    .selectFrom('tags as t')
    .innerJoin('tag_classes as c', 'c.id', 't.tag_class_id')
    .select(['t.start_time', 't.end_time', 't.min_frequency', 't.max_frequency', 'c.class_name'])
    .where('t.tag_set_id', '=', tagSet)
    .where('t.media_file_id', '=', mediaFile)
    .where('t.end_time', '>=', start)
    .where('t.start_time', '<=', end)
    .orderBy('t.start_time')
    .orderBy('t.id')
    .limit(MAX_TAGS)
    .execute()
  return rows.map((r) => ({
    startTime: r.start_time,
    endTime: r.end_time,
    minFrequency: r.min_frequency,
    maxFrequency: r.max_frequency,
    label: r.class_name,
  }))
}

const seconds = (n: number) => `${pythonFloat(Math.round(n * 10) / 10)} s`

/** The refusal of a JSON stretch of more than MAX_FRAMES, under the parameter the caller gave that sets its length. */
function tooLongForJson(asked: Asked, l: FrameLayout, file: string, duration: number, length: number): ApiError {
  const most = MAX_FRAMES / l.framesPerSecond
  const message =
    `The JSON spectra hold at most ${seconds(most)} (${MAX_FRAMES} frames at ${Math.round(l.framesPerSecond * 100) / 100} frames a second)` +
    `, and ${asked.startTime === undefined && asked.endTime === undefined ? `${file} lasts ${seconds(duration)}` : `this stretch lasts ${seconds(length)}`}` +
    `: give startTime and endTime at most ${seconds(most)} apart, or ask for format=png, a picture of a stretch of any length (the whole recording without startTime and endTime).`
  const field = asked.endTime !== undefined ? 'endTime' : asked.startTime !== undefined ? 'startTime' : undefined
  return field ? badRequest({ [field]: [message] }) : new ApiError(400, { detail: message })
}

/** The JSON answer: frames × bands of dB values, to 0.01 dB. */
function spectraJson(mediaFile: number, startTime: number, endTime: number, s: Spectrogram) {
  const spectra: number[][] = []
  for (let f = 0; f < s.frames; f++)
    spectra.push(Array.from(s.data.subarray(f * s.bands, (f + 1) * s.bands), (v) => Math.round(v * 100) / 100))
  return {
    body: {
      mediaFile,
      startTime,
      endTime,
      framesPerSecond: s.framesPerSecond,
      numFrames: s.frames,
      numBands: s.bands,
      bandEdges: s.edges,
      spectra,
    },
  }
}

export const spectraEndpoint: Endpoint = {
  path: `${API}/mediaFile/:id/spectra/`,
  name: 'Media File Spectra',
  description:
    "The spectrogram of the media file (WAV, FLAC or MP3) between startTime and endTime (default: all of it), with the caller's spectra settings: as JSON, at most 100,000 frames; as a PNG picture (format=png), a stretch of any length, each pixel column the loudest (or mean) of the frames it covers.",
  methods: {
    GET: async (ctx) => {
      const { row } = await ctx.services.records.fetch(ctx, mediaFiles, ctx.params.id)
      const values: Asked = {}
      const errors: Record<string, string[]> = {}
      for (const [name, f] of Object.entries(query)) {
        const raw = ctx.query[name]
        if (raw === undefined || raw === '') continue
        const r = f.type === 'pk' ? parseValue({ type: 'integer', min: 1 }, raw) : parseValue(f, raw)
        if (r.ok) Object.assign(values, { [name]: r.value })
        else errors[name] = [name === 'width' ? WIDTH_REFUSAL : r.error]
      }
      if (!errors.endTime && values.endTime !== undefined && values.endTime <= (values.startTime ?? 0)) {
        errors.endTime = ['endTime must be after startTime.']
      }
      let tagSet: { id: number; name: string } | null = null
      if (!errors.tagSet && values.tagSet !== undefined) {
        // a tag set the caller cannot read is like a missing one (README: references)
        tagSet = await ctx.services.records.fetch(ctx, tagSets, values.tagSet, ['read']).then(
          (f) => f.row,
          (e) => {
            if (e instanceof ApiError && e.statusCode === 404) return null
            throw e
          },
        )
        if (!tagSet) errors.tagSet = [MSG.pkMissing(values.tagSet)]
      }
      if (Object.keys(errors).length) throw badRequest(errors)
      // a library that keeps speech from its readers: withheld, or drawn with its speech silenced (a flat band)
      const hearing = await hearingOf(ctx.db, ctx.caller, row)
      if (hearing.kind === 'withheld') throw new ApiError(403, { detail: hearing.reason })
      const muted = hearing.kind === 'muted' ? hearing.spans : []

      // only the frames of [start, end) are read (byte ranges of a WAV file, frames near them of a FLAC file), chunk by chunk
      const settings = await spectraSettingsOf(ctx.db, ctx.caller.id)
      let drawn: { start: number; end: number; columns: PictureColumns }
      try {
        const source = await openAudio(ctx.storage, row.file)
        const { sampleRate, duration } = source.info
        // a range outside the file is refused as a tag's is (docs/decisions.md §18); an MP3's length is an estimate
        const extent = { duration, estimate: source.info.format === 'mp3', alias: row.alias }
        const outside =
          values.startTime !== undefined && values.startTime >= duration
            ? {
                startTime: [
                  `startTime ${pythonFloat(values.startTime)} is past the end of ${mediaFileNamed(row)}, at ${secondsText(duration)} s.`,
                ],
              }
            : outOfBounds(row.id, extent, { endTime: values.endTime })
        if (Object.keys(outside).length) throw badRequest(outside)
        const start = values.startTime ?? 0
        const end = Math.min(values.endTime ?? duration, duration)
        const range = { from: Math.floor(start * sampleRate), to: Math.ceil(end * sampleRate) }
        const layout = frameLayout(sampleRate, settings)
        const frames = framesOf(layout, range.to - range.from)
        if (values.format !== 'png') {
          if (frames > MAX_FRAMES) throw tooLongForJson(values, layout, mediaFileNamed(row), duration, end - start)
          const chunks = source.chunks(range)
          return spectraJson(
            row.id,
            start,
            end,
            await spectrogramOf(
              muted.length ? silencedChunks(chunks, frameSpans(muted, sampleRate)) : chunks,
              sampleRate,
              settings,
            ),
          )
        }
        // a picture of any length: each frame folded into its column as the chunks arrive
        const fold = await overviewColumns(ctx.config, row.file, source, {
          range,
          sampleRate,
          settings,
          frames,
          columns: pictureColumns(frames, values.width),
          statistic: values.statistic ?? 'max',
          silenced: frameSpans(muted, sampleRate),
        })
        drawn = {
          start,
          end,
          columns: {
            data: fold.result(decibels),
            columns: fold.columns,
            bands: layout.bands,
            edges: layout.edges,
            seconds: frames / layout.framesPerSecond,
          },
        }
      } catch (e) {
        if (e instanceof ApiError) throw e
        throw new ApiError(400, {
          detail: e instanceof UnsupportedAudioError ? `${e.message}.` : "The media file's bytes cannot be read.",
        })
      }
      const picture = await columnsPicture(drawn.columns, {
        start: drawn.start,
        width: values.width,
        realStartTime: wireTimestamp(row.real_start_time ?? null),
        title: `${row.alias || mediaFileNamed(row)}${tagSet ? ` · ${tagSet.name}` : ''}`,
        tags: tagSet ? await tagsToDraw(ctx.db, tagSet.id, row.id, drawn.start, drawn.end) : [],
      })
      return { body: picture, headers: { 'content-type': 'image/png' } }
    },
  },
  doc: {
    keys: ['mediaFile'],
    actions: { GET: 'spectra' },
    list: false,
    filters: query,
    success: {
      GET: [
        {
          status: 200,
          description: 'The spectra as JSON, or with format=png an image of frames × bands',
          also: ['image/png'],
          body: { type: 'object', required: ['mediaFile', 'numFrames', 'numBands', 'spectra'] },
        },
      ],
    },
  },
}

export const endpoints = () => [spectraEndpoint]
