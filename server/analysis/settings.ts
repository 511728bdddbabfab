import type { Db, NewRow } from '../db/schema.js'

// The default display and spectra settings of a user (UserSettings): the values a
// new record's columns take, and the `default` record every user has. The userSettings/ resource's field
// defaults read them from here; spectra read a user's `default` record (server/analysis/spectra.ts).

/** The spectra settings of one view, by column without the view's prefix. */
export const SPECTRA_DEFAULTS = {
  window_size_in_seconds: 10,
  spectra_minimum_band_frequency: 0,
  spectra_maximum_band_frequency: 22050,
  spectra_damping_factor: 0.1,
  spectra_num_frequency_bands: 256,
  spectra_num_frames_per_second: 100,
} as const

/** The column prefixes of the views that have spectra settings of their own ('' is the main view). */
export const VIEW_PREFIXES = ['', 'file_view_', 'catalog_view_', 'tag_view_'] as const

/** The other settings, by column. */
export const DISPLAY_DEFAULTS = {
  show_spectra: true,
  show_waveform: true,
  show_pitch_trace: false,
  load_audio: true,
  max_num_audio_files_to_list: 100,
  transcript_format: '',
} as const

/** Column values of a new record with every default. */
export function defaultSettingsColumns(userId: number, name: string): NewRow<'user_settings'> {
  const cols: Record<string, unknown> = { user_id: userId, name }
  for (const prefix of VIEW_PREFIXES) {
    for (const [column, value] of Object.entries(SPECTRA_DEFAULTS)) cols[prefix + column] = value
  }
  Object.assign(cols, DISPLAY_DEFAULTS)
  return cols as NewRow<'user_settings'>
}

/** The user's `default` record, created if missing; safe when two first lists race. */
export async function ensureDefaultSettings(db: Db, userId: number): Promise<void> {
  await db
    .insertInto('user_settings')
    .values(defaultSettingsColumns(userId, 'default'))
    .onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
    .execute()
}
