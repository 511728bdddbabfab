import { ownedBy } from '../access.js'
import { DISPLAY_DEFAULTS, ensureDefaultSettings, SPECTRA_DEFAULTS } from '../analysis/settings.js'
import { badRequest } from '../http/errors.js'
import type { Fields, TableFields } from '../http/fields.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { users } from './users.js'

// userSettings/: display settings, owner only. A user normally has one record
// named `default`; listing creates it the first time, with the defaults of
// server/analysis/settings.ts.
// A name is unique per user.

const spectra = (prefix: string, column: string): Fields => {
  const name = (s: string) => (prefix ? prefix + s : s.charAt(0).toLowerCase() + s.slice(1))
  const col = (s: string) => column + s
  return {
    [name('WindowSizeInSeconds')]: {
      type: 'float',
      column: col('window_size_in_seconds'),
      default: SPECTRA_DEFAULTS.window_size_in_seconds,
      min: 0,
    },
    [name('SpectraMinimumBandFrequency')]: {
      type: 'float',
      column: col('spectra_minimum_band_frequency'),
      default: SPECTRA_DEFAULTS.spectra_minimum_band_frequency,
      min: 0,
    },
    [name('SpectraMaximumBandFrequency')]: {
      type: 'float',
      column: col('spectra_maximum_band_frequency'),
      default: SPECTRA_DEFAULTS.spectra_maximum_band_frequency,
      min: 0,
    },
    [name('SpectraDampingFactor')]: {
      type: 'float',
      column: col('spectra_damping_factor'),
      default: SPECTRA_DEFAULTS.spectra_damping_factor,
      min: 0,
    },
    [name('SpectraNumFrequencyBands')]: {
      type: 'integer',
      column: col('spectra_num_frequency_bands'),
      default: SPECTRA_DEFAULTS.spectra_num_frequency_bands,
      min: 1,
    },
    [name('SpectraNumFramesPerSecond')]: {
      type: 'float',
      column: col('spectra_num_frames_per_second'),
      default: SPECTRA_DEFAULTS.spectra_num_frames_per_second,
      min: 0,
    },
  }
}

const VIEWS = [
  ['', ''],
  ['fileView', 'file_view_'],
  ['catalogView', 'catalog_view_'],
  ['tagView', 'tag_view_'],
] as const

const fields: TableFields<'user_settings'> = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  name: { type: 'string', column: 'name', maxLength: 255, default: 'default' },
  ...spectra('', ''),
  showSpectra: { type: 'boolean', column: 'show_spectra', default: DISPLAY_DEFAULTS.show_spectra },
  showWaveform: { type: 'boolean', column: 'show_waveform', default: DISPLAY_DEFAULTS.show_waveform },
  showPitchTrace: { type: 'boolean', column: 'show_pitch_trace', default: DISPLAY_DEFAULTS.show_pitch_trace },
  loadAudio: { type: 'boolean', column: 'load_audio', default: DISPLAY_DEFAULTS.load_audio },
  maxNumAudioFilesToList: {
    type: 'integer',
    column: 'max_num_audio_files_to_list',
    default: DISPLAY_DEFAULTS.max_num_audio_files_to_list,
    min: 0,
  },
  transcriptFormat: {
    type: 'string',
    column: 'transcript_format',
    maxLength: 255,
    allowBlank: true,
    default: DISPLAY_DEFAULTS.transcript_format,
  },
  ...spectra('fileView', 'file_view_'),
  ...spectra('catalogView', 'catalog_view_'),
  ...spectra('tagView', 'tag_view_'),
}

export const userSettings = defineResource({
  name: 'userSettings',
  title: 'User Settings',
  table: 'user_settings',
  fields,
  scope: ownedBy('user_id'),
  owner: 'user_id',
  beforeList: (ctx) => ensureDefaultSettings(ctx.db, ctx.caller.id),
  // the list is the caller's own settings, site admins included (a site admin reads others' by id)
  listFilter: (qb, ctx) => qb.where('r.user_id', '=', ctx.caller.id),
  validate: async (ctx, values, existing) => {
    const errors: Record<string, string[]> = {}
    if (typeof values.name === 'string' && values.name !== existing?.name) {
      const owner = existing ? existing.user_id : ctx.caller.id
      const taken = await ctx.db
        .selectFrom('user_settings')
        .select('id')
        .where('user_id', '=', owner)
        .where('name', '=', values.name)
        .executeTakeFirst()
      if (taken) errors.name = ['user settings with this name already exists.']
    }
    for (const [prefix] of VIEWS) {
      const key = (s: string) => (prefix ? prefix + s : s.charAt(0).toLowerCase() + s.slice(1))
      const minKey = key('SpectraMinimumBandFrequency')
      const maxKey = key('SpectraMaximumBandFrequency')
      const min = values[minKey] ?? existing?.[fields[minKey].column!]
      const max = values[maxKey] ?? existing?.[fields[maxKey].column!]
      if (typeof min === 'number' && typeof max === 'number' && min > max) {
        errors[minKey] = [`Must not exceed ${maxKey}.`]
      }
    }
    if (Object.keys(errors).length) throw badRequest(errors)
  },
})

export const endpoints = () => resourceEndpoints(userSettings)
