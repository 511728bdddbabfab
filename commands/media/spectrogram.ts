import { Args, Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { saveAtomically } from '../../src/save-file.js'
import { requireExtension } from '../../src/server-offers.js'

export default class MediaSpectrogram extends AuthCommand<typeof MediaSpectrogram> {
  static summary = 'Save a picture of a media file\'s spectrogram (PNG), with the tags of a tag set'
  static description = 'Drawn by the server with your UserSettings (bands, band frequencies, frames per second, damping): a time axis (clock time when the recording\'s start is known), a frequency axis in kHz, a colour map, and with --tag-set that tag set\'s tags on the file as labelled boxes. WAV, FLAC and MP3.'
  static examples = [
    '<%= config.bin %> media spectrogram 42',
    '<%= config.bin %> media spectrogram 42 --start 10 --end 25 --tag-set 3 -o call.png',
  ]

  static args = { id: Args.integer({ description: 'media file id', required: true, min: 1 }) }
  static flags = {
    start: Flags.string({ description: 'start time in seconds (default: the beginning)' }),
    end: Flags.string({ description: 'end time in seconds (default: the end)' }),
    'tag-set': Flags.integer({ description: 'draw the tags of this tag set', min: 1 }),
    output: Flags.string({ char: 'o', description: 'PNG file to write (default: spectrogram-ID.png)' }),
  }

  async run() {
    await requireExtension(this.api, 'spectrograms')
    const url = this.api.url(`mediaFile/${this.args.id}/spectra/`, {
      format: 'png', startTime: this.flags.start, endTime: this.flags.end, tagSet: this.flags['tag-set'],
    })
    const body = await this.api.download(url)
    const out = this.flags.output ?? `spectrogram-${this.args.id}.png`
    await saveAtomically(body, out)
    this.logToStderr(`Saved ${out}`)
    return { mediaFile: this.args.id, savedTo: out }
  }
}
