import { Args, Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { saveAtomically } from '../../src/save-file.js'

export default class MediaSpectrogram extends AuthCommand<typeof MediaSpectrogram> {
  static summary = 'Save the spectrogram of a media file as a PNG image'
  static description = 'Computed by the server with your UserSettings (bands, band frequencies, frames per second, damping).'
  static examples = [
    '<%= config.bin %> media spectrogram 42 -o call.png',
    '<%= config.bin %> media spectrogram 42 --start 10 --end 25 -o call.png',
  ]

  static args = { id: Args.integer({ description: 'media file id', required: true, min: 1 }) }
  static flags = {
    start: Flags.string({ description: 'start time in seconds (default: the beginning)' }),
    end: Flags.string({ description: 'end time in seconds (default: the end)' }),
    output: Flags.string({ char: 'o', description: 'PNG file to write', required: true }),
  }

  async run() {
    const url = this.api.url(`mediaFile/${this.args.id}/spectra/`, {
      format: 'png', startTime: this.flags.start, endTime: this.flags.end,
    })
    const body = await this.api.download(url)
    const out = this.flags.output
    await saveAtomically(body, out)
    this.logToStderr(`Saved ${out}`)
    return { mediaFile: this.args.id, savedTo: out }
  }
}
