import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, mediaFileId, scopeLibrary, tagSetId } from '../../src/lookup.js'
import { saveAtomically } from '../../src/saveFile.js'
import { requireExtension } from '../../src/serverOffers.js'
import { STATISTICS } from '../../server/media/pictureColumns.js'
import { DEFAULT_PLOT_COLUMNS, PICTURE_WIDTH } from '../../server/media/spectrogramPicture.js'

/** a whole day's picture takes a minute or more: the answer is waited for this long, or --timeout if longer */
const PICTURE_WAIT_MS = 10 * 60_000

export default class MediaSpectrogram extends AuthCommand<typeof MediaSpectrogram> {
  static summary = "Save a picture of a media file's spectrogram (PNG), with the tags of a tag set"
  static description =
    "Drawn by the server with your UserSettings (bands, band frequencies, frames per second, damping): a time axis (clock time when the recording's start is known), a frequency axis in kHz, a colour map, and with --tag-set that tag set's tags on the file as labelled boxes. WAV, FLAC and MP3.\n\n" +
    `Without --start and --end the whole recording is drawn, however long: a stretch of more frames than the picture has pixel columns is an overview, each column the loudest of the frames it covers (--statistic mean: their mean energy). The picture is ${PICTURE_WIDTH.min} to ${PICTURE_WIDTH.max} pixels wide (--width; default ${PICTURE_WIDTH.default}, narrower for a stretch of fewer than ${DEFAULT_PLOT_COLUMNS} frames), and 332 to 588 high (from the number of bands). A long recording takes a while (a day at 48 kHz a minute or more): the answer is waited for up to 10 minutes, or --timeout if longer.`
  static examples = [
    '<%= config.bin %> media spectrogram 1',
    '<%= config.bin %> media spectrogram 1 --start 0.5 --end 2.5 --tag-set 1 -o call.png',
    '<%= config.bin %> media spectrogram siteA/2026-05-01/20260501_050000.WAV --width 4000 -o whole.png',
  ]

  static args = { id: Args.string({ description: 'media file: alias, file name (when unique) or id', required: true }) }
  static flags = {
    start: Flags.string({ description: 'start time in seconds (default: the beginning)' }),
    end: Flags.string({ description: 'end time in seconds (default: the end)' }),
    'tag-set': Flags.string({ description: 'draw the tags of this tag set (name or id)' }),
    width: Flags.integer({
      min: PICTURE_WIDTH.min,
      max: PICTURE_WIDTH.max,
      description: `the picture's width in pixels, ${PICTURE_WIDTH.min} to ${PICTURE_WIDTH.max} (default: ${PICTURE_WIDTH.default}, narrower for a short stretch)`,
    }),
    statistic: Flags.string({
      options: [...STATISTICS],
      description:
        'what a pixel column shows of the frames it covers: the loudest (max, default) or their mean energy (mean)',
    }),
    output: Flags.string({ char: 'o', description: 'PNG file to write (default: spectrogram-ID.png)' }),
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }

  async run() {
    await requireExtension(this.api, 'spectrograms')
    const id = await mediaFileId(this.api, 'ID', this.args.id, await scopeLibrary(this.api, this.flags.library))
    const tagSet =
      this.flags['tag-set'] === undefined ? undefined : await tagSetId(this.api, '--tag-set', this.flags['tag-set'])
    const url = this.api.url(`mediaFile/${id}/spectra/`, {
      format: 'png',
      startTime: this.flags.start,
      endTime: this.flags.end,
      tagSet,
      width: this.flags.width,
      statistic: this.flags.statistic,
    })
    const body = await this.api.download(url, { waitAtLeastMs: PICTURE_WAIT_MS })
    const out = this.flags.output ?? `spectrogram-${id}.png`
    await saveAtomically(body, out)
    this.logToStderr(`Saved ${out}`)
    return { mediaFile: id, savedTo: out }
  }
}
