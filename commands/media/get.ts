import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, mediaFileId, scopeLibrary } from '../../src/lookup.js'
import { LIBRARIES, MEDIA_TYPES, SENSORS, USERS } from '../../src/names.js'
import { record, thousandths } from '../../src/output.js'
import type { MediaFileMetaData } from '../../src/records.js'

export default class MediaGet extends AuthCommand<typeof MediaGet> {
  static summary = 'Show one media file and its metadata'
  static examples = [
    '<%= config.bin %> media get 1',
    '<%= config.bin %> media get 1 --json',
    '<%= config.bin %> media get siteA/2026-05-01/20260501_050000.WAV --library 1',
  ]
  static args = { id: Args.string({ description: 'media file: alias, file name (when unique) or id', required: true }) }
  static flags = {
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }

  async run() {
    const media = await this.api.get(
      `mediaFile/${await mediaFileId(this.api, 'ID', this.args.id, await scopeLibrary(this.api, this.flags.library))}/`,
    )
    if (this.jsonEnabled()) return media
    const { mediafilemetadata_set: meta, ...rest } = media
    // its library, sensor, uploader and type by name, as tables show them (docs/decisions.md §10); --json keeps the ids
    const names = await this.names([LIBRARIES, SENSORS, USERS, MEDIA_TYPES], {})
    const shownRest: Record<string, unknown> = { ...rest }
    for (const [key, kind] of [
      ['library', LIBRARIES],
      ['sensor', SENSORS],
      ['user', USERS],
      ['type', MEDIA_TYPES],
    ] as const)
      if (key in rest) shownRest[key] = names.of(kind, rest[key])
    const metadata = Object.fromEntries((Array.isArray(meta) ? meta : []).map((m) => [`  ${m.name}`, shown(m)]))
    this.log(record({ ...shownRest, ...(Object.keys(metadata).length ? { metadata: '' } : {}), ...metadata }))
    return media
  }
}

/** A metadata value as people read it: a duration to the millisecond (the stored fact keeps every digit, for --json). */
function shown(m: Pick<MediaFileMetaData, 'name' | 'value'>): string {
  const n = Number(m.value)
  return m.name === 'durationInSeconds' && m.value !== '' && Number.isFinite(n) ? `${thousandths(n)} s` : m.value
}
