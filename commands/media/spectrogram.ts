import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, mediaFileId, scopeLibrary, tagSetId } from '../../src/lookup.js'
import { saveAtomically } from '../../src/saveFile.js'
import { requireExtension } from '../../src/serverOffers.js'

export default class MediaSpectrogram extends AuthCommand<typeof MediaSpectrogram> {
  static summary = 'Save a picture of a media file\'s spectrogram (PNG), with the tags of a tag set'
  static description = 'Drawn by the server with your UserSettings (bands, band frequencies, frames per second, damping): a time axis (clock time when the recording\'s start is known), a frequency axis in kHz, a colour map, and with --tag-set that tag set\'s tags on the file as labelled boxes. WAV, FLAC and MP3.'
  static examples = [
    '<%= config.bin %> media spectrogram 1',
    '<%= config.bin %> media spectrogram 1 --start 0.5 --end 2.5 --tag-set 1 -o call.png',
  ]

  static args = { id: Args.string({ description: 'media file: alias, file name (when unique) or id', required: true }) }
  static flags = {
    start: Flags.string({ description: 'start time in seconds (default: the beginning)' }),
    end: Flags.string({ description: 'end time in seconds (default: the end)' }),
    'tag-set': Flags.string({ description: 'draw the tags of this tag set (name or id)' }),
    output: Flags.string({ char: 'o', description: 'PNG file to write (default: spectrogram-ID.png)' }),
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }

  async run() {
    await requireExtension(this.api, 'spectrograms')
    const id = await mediaFileId(this.api, 'ID', this.args.id, await scopeLibrary(this.api, this.flags.library))
    const tagSet = this.flags['tag-set'] === undefined ? undefined : await tagSetId(this.api, '--tag-set', this.flags['tag-set'])
    const url = this.api.url(`mediaFile/${id}/spectra/`, {
      format: 'png', startTime: this.flags.start, endTime: this.flags.end, tagSet,
    })
    const body = await this.api.download(url)
    const out = this.flags.output ?? `spectrogram-${id}.png`
    await saveAtomically(body, out)
    this.logToStderr(`Saved ${out}`)
    return { mediaFile: id, savedTo: out }
  }
}
