import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, mediaFileId, scopeLibrary } from '../../src/lookup.js'
import { record, thousandths } from '../../src/output.js'

export default class MediaGet extends AuthCommand<typeof MediaGet> {
  static summary = 'Show one media file and its metadata'
  static examples = ['<%= config.bin %> media get 1', '<%= config.bin %> media get 1 --json', '<%= config.bin %> media get siteA/2026-05-01/20260501_050000.WAV --library 1']
  static args = { id: Args.string({ description: 'media file: alias, file name (when unique) or id', required: true }) }
  static flags = {
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }

  async run() {
    const media = await this.api.get(`mediaFile/${await mediaFileId(this.api, 'ID', this.args.id, await scopeLibrary(this.api, this.flags.library))}/`)
    const { mediafilemetadata_set: meta, ...rest } = media
    const metadata = Object.fromEntries((Array.isArray(meta) ? meta : []).map((m: any) => [`  ${m.name}`, shown(m)]))
    this.log(record({ ...rest, ...(Object.keys(metadata).length ? { metadata: '' } : {}), ...metadata }))
    return media
  }
}

/** A metadata value as people read it: a duration to the millisecond (the stored fact keeps every digit, for --json). */
function shown(m: { name: string; value: string }): string {
  const n = Number(m.value)
  return m.name === 'durationInSeconds' && m.value !== '' && Number.isFinite(n) ? `${thousandths(n)} s` : m.value
}
