import { wireTimestamp } from '../db/time.js'
import { ApiError, badRequest, MSG } from '../http/errors.js'
import type { Endpoint } from '../http/endpoint.js'
import { parseValue, type Fields } from '../http/fields.js'
import { UnsupportedAudioError } from '../analysis/audio.js'
import { openAudio, type AudioSource } from '../analysis/audioSource.js'
import { spectraSettingsOf, spectrogram } from '../analysis/spectra.js'
import { outOfBounds } from '../media/extent.js'
import { pythonFloat, secondsText } from '../media/facts.js'
import { spectrogramPicture, type PictureTag } from '../media/spectrogramPicture.js'
import { mediaFiles } from './mediaFile.js'
import { API, fetchRecord, type Db } from './resource.js'
import { tagSets } from './tagSet.js'

// GET mediaFile/{Id}/spectra/?startTime=&endTime=&format=json|png&tagSet= (extension):
// the spectrogram of a readable media file (WAV, FLAC or MP3), computed with
// the caller's UserSettings by the same code the discovery jobs use. JSON
// holds frames × bands of dB values; png is a picture with a time axis
// (clock time when realStartTime is known), a kHz axis, a colour map, and the
// tags of the tag set as labelled boxes (README, "Spectrograms").

const MAX_FRAMES = 100_000

const query: Fields = {
  startTime: { type: 'float', min: 0 },
  endTime: { type: 'float', min: 0 },
  format: { type: 'choice', choices: ['json', 'png'] },
  tagSet: { type: 'pk', target: () => tagSets, description: 'png: draw the tags of this tag set on the media file' },
}

/** at most this many tags are drawn on one picture */
const MAX_TAGS = 5000

/** The tags of a tag set on a media file overlapping [start, end] seconds, labelled with their class name. */
async function tagsToDraw(db: Db, tagSet: number, mediaFile: number, start: number, end: number): Promise<PictureTag[]> {
  const rows = await db.selectFrom('tags as t').innerJoin('tag_classes as c', 'c.id', 't.tag_class_id')
    .select(['t.start_time', 't.end_time', 't.min_frequency', 't.max_frequency', 'c.class_name'])
    .where('t.tag_set_id', '=', tagSet).where('t.media_file_id', '=', mediaFile)
    .where('t.end_time', '>=', start).where('t.start_time', '<=', end)
    .orderBy('t.start_time').orderBy('t.id').limit(MAX_TAGS).execute()
  return rows.map((r) => ({ startTime: r.start_time, endTime: r.end_time, minFrequency: r.min_frequency, maxFrequency: r.max_frequency, label: r.class_name }))
}

/** The mono samples of frames [from, to) of a source in one array (shorter when the file ends first). */
async function samplesOf(source: AudioSource, from: number, to: number): Promise<Float32Array> {
  const out = new Float32Array(Math.max(0, to - from))
  let filled = 0
  for await (const c of source.chunks({ from, to })) {
    out.set(c.samples.subarray(0, out.length - (c.start - from)), c.start - from)
    filled = c.start - from + c.samples.length
  }
  return filled < out.length ? out.subarray(0, filled) : out
}

export const spectraEndpoint: Endpoint = {
  path: `${API}/mediaFile/:id/spectra/`,
  name: 'Media File Spectra',
  description: 'The spectrogram of the media file (WAV, FLAC or MP3) between startTime and endTime, with the caller\'s spectra settings.',
  methods: {
    GET: async (ctx) => {
      const { row } = await fetchRecord(ctx.db, mediaFiles, ctx.caller, ctx.params.id, undefined, ctx.services.fast)
      const values: { startTime?: number; endTime?: number; format?: string; tagSet?: number } = {}
      const errors: Record<string, string[]> = {}
      for (const [name, f] of Object.entries(query)) {
        const raw = ctx.query[name]
        if (raw === undefined || raw === '') continue
        const r = f.type === 'pk' ? parseValue({ type: 'integer', min: 1 }, raw) : parseValue(f, raw)
        if (r.ok) Object.assign(values, { [name]: r.value })
        else errors[name] = [r.error]
      }
      if (!errors.endTime && values.endTime !== undefined && values.endTime <= (values.startTime ?? 0)) {
        errors.endTime = ['endTime must be after startTime.']
      }
      let tagSet: { id: number; name: string } | null = null
      if (!errors.tagSet && values.tagSet !== undefined) {
        // a tag set the caller cannot read is like a missing one (README: references)
        tagSet = await fetchRecord(ctx.db, tagSets, ctx.caller, values.tagSet, ['read'], ctx.services.fast).then((f) => f.row,
          (e) => { if (e instanceof ApiError && e.statusCode === 404) return null; throw e })
        if (!tagSet) errors.tagSet = [MSG.pkMissing(values.tagSet)]
      }
      if (Object.keys(errors).length) throw badRequest(errors)

      // only the frames of [start, end) are read (byte ranges of a WAV file, frames near them of a FLAC file)
      const settings = await spectraSettingsOf(ctx.db, ctx.caller.id)
      let start: number, end: number, samples: Float32Array, sampleRate: number
      try {
        const source = await openAudio(ctx.storage, row.file)
        sampleRate = source.info.sampleRate
        const duration = source.info.duration
        // a range outside the file is refused as a tag's is (docs/decisions.md §18); an MP3's length is an estimate
        const extent = { duration, estimate: source.info.format === 'mp3' }
        const outside = values.startTime !== undefined && values.startTime >= duration
          ? { startTime: [`startTime ${pythonFloat(values.startTime)} is past the end of media file ${row.id} (${secondsText(duration)} s).`] }
          : outOfBounds(row.id, extent, { endTime: values.endTime })
        if (Object.keys(outside).length) throw badRequest(outside)
        start = values.startTime ?? 0
        end = Math.min(values.endTime ?? duration, duration)
        if ((end - start) * settings.framesPerSecond > MAX_FRAMES) {
          throw badRequest({ endTime: [`At most ${MAX_FRAMES} frames at a time: ask for a shorter stretch.`] })
        }
        samples = await samplesOf(source, Math.floor(start * sampleRate), Math.ceil(end * sampleRate))
      } catch (e) {
        if (e instanceof ApiError) throw e
        throw new ApiError(400, { detail: e instanceof UnsupportedAudioError ? `${e.message}.` : 'The media file\'s bytes cannot be read.' })
      }
      const s = await spectrogram(samples, sampleRate, settings)
      if (values.format === 'png') {
        const picture = await spectrogramPicture(s, {
          start, realStartTime: wireTimestamp(row.real_start_time ?? null),
          title: `${row.alias || `media file ${row.id}`}${tagSet ? ` · ${tagSet.name}` : ''}`,
          tags: tagSet ? await tagsToDraw(ctx.db, tagSet.id, row.id, start, end) : [],
        })
        return { body: picture, headers: { 'content-type': 'image/png' } }
      }
      const spectra: number[][] = []
      for (let f = 0; f < s.frames; f++) spectra.push(Array.from(s.data.subarray(f * s.bands, (f + 1) * s.bands), (v) => Math.round(v * 100) / 100))
      return {
        body: {
          mediaFile: row.id, startTime: start, endTime: end, framesPerSecond: s.framesPerSecond,
          numFrames: s.frames, numBands: s.bands, bandEdges: s.edges, spectra,
        },
      }
    },
  },
  doc: {
    keys: ['mediaFile'], actions: { GET: 'spectra' }, list: false,
    success: { GET: [{ status: 200, description: 'The spectra as JSON, or with format=png an image of frames × bands', also: ['image/png'],
      body: { type: 'object', required: ['mediaFile', 'numFrames', 'numBands', 'spectra'] } }] },
  },
}

export const endpoints = () => [spectraEndpoint]
