import { ApiError, badRequest } from '../http/errors.js'
import type { Endpoint } from '../http/endpoint.js'
import { parseValue, type Fields } from '../http/fields.js'
import { UnsupportedAudioError } from '../jobs/audio.js'
import { decodeAudio } from '../jobs/decode.js'
import { spectraSettingsOf, spectrogram } from '../jobs/spectra.js'
import { spectrogramPng } from '../jobs/spectraImage.js'
import { storageFor } from '../storage/index.js'
import { mediaFiles } from './mediaFile.js'
import { API, fetchRecord } from './resource.js'

// GET mediaFile/{Id}/spectra/?startTime=&endTime=&format=json|png (extension):
// the spectrogram of a readable media file, computed with the caller's
// UserSettings by the same code the discovery jobs use. JSON holds
// frames × bands of dB values; png is a grayscale image of them.

const MAX_FRAMES = 100_000

const query: Fields = {
  startTime: { type: 'float', min: 0 },
  endTime: { type: 'float', min: 0 },
  format: { type: 'choice', choices: ['json', 'png'] },
}

export const spectraEndpoint: Endpoint = {
  path: `${API}/mediaFile/:id/spectra/`,
  name: 'Media File Spectra',
  description: 'The spectrogram of the media file (WAV, FLAC or MP3) between startTime and endTime, with the caller\'s spectra settings.',
  methods: {
    GET: async (ctx) => {
      const { row } = await fetchRecord(ctx.db, mediaFiles, ctx.caller, ctx.params.id)
      const values: Record<string, any> = {}
      const errors: Record<string, string[]> = {}
      for (const [name, f] of Object.entries(query)) {
        const raw = ctx.query[name]
        if (raw === undefined || raw === '') continue
        const r = parseValue(f, raw)
        if (r.ok) values[name] = r.value
        else errors[name] = [r.error]
      }
      if (!errors.endTime && values.endTime !== undefined && values.endTime <= (values.startTime ?? 0)) {
        errors.endTime = ['endTime must be after startTime.']
      }
      if (Object.keys(errors).length) throw badRequest(errors)

      let audio
      try {
        audio = await decodeAudio(storageFor(ctx.config).read(row.file))
      } catch (e) {
        throw new ApiError(400, { detail: e instanceof UnsupportedAudioError ? `${e.message}.` : 'The media file\'s bytes cannot be read.' })
      }
      const duration = audio.samples.length / audio.sampleRate
      const start = Math.min(values.startTime ?? 0, duration)
      const end = Math.min(values.endTime ?? duration, duration)
      const settings = await spectraSettingsOf(ctx.db, ctx.caller.id)
      if ((end - start) * settings.framesPerSecond > MAX_FRAMES) {
        throw badRequest({ endTime: [`At most ${MAX_FRAMES} frames at a time: ask for a shorter stretch.`] })
      }
      const s = spectrogram(audio.samples.subarray(Math.floor(start * audio.sampleRate), Math.ceil(end * audio.sampleRate)),
        audio.sampleRate, settings)
      if (values.format === 'png') {
        return { body: spectrogramPng(s), headers: { 'content-type': 'image/png' } }
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
  doc: { keys: ['mediaFile'], actions: { GET: 'spectra' }, list: false },
}

export const endpoints = [spectraEndpoint]
