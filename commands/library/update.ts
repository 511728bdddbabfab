import * as Args from '@oclif/core/args'
import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/baseCommand.js'
import { libraryId } from '../../src/lookup.js'

const POLICIES = ['keep', 'mute', 'withhold'] as const

export default class LibraryUpdate extends AuthCommand<typeof LibraryUpdate> {
  static summary = "Rename a library, or set what of its recordings' human speech its readers get (--speech-policy)"
  static description =
    'A speech policy other than keep applies to everyone who may read the library but not change it: mute silences ' +
    'the spans of speech (machine tags of the class speech) in the recordings and spectrograms they get, withhold refuses them any ' +
    'recording with speech. Setting it queues a SpeechDetection job for the recordings not yet checked (and every later import ' +
    'does); until it has run they are withheld from readers. Owners, writers and site admins always get the recordings as stored.'
  static examples = [
    '<%= config.bin %> library update field --speech-policy mute',
    '<%= config.bin %> library update field --speech-policy withhold',
    '<%= config.bin %> library update field --name "Field season 2026"',
  ]
  static args = { library: Args.string({ description: 'library (name or id)', required: true }) }
  static flags = {
    name: Flags.string({ description: "the library's new name" }),
    'speech-policy': Flags.option({
      options: POLICIES,
      description:
        'keep (as stored), mute (speech silenced) or withhold (recordings with speech refused), for readers who may not change the library',
    })(),
  }

  async run() {
    const changes: Record<string, string> = {}
    if (this.flags.name !== undefined) changes.name = this.flags.name
    if (this.flags['speech-policy'] !== undefined) changes.speechPolicy = this.flags['speech-policy']
    if (!Object.keys(changes).length) this.error('Nothing to change: give --name or --speech-policy.', { exit: 2 })
    const id = await libraryId(this.api, 'LIBRARY', this.args.library)
    const library = await this.api.patch(`library/${id}/`, changes)
    this.logToStderr(
      `Library ${library.id} '${library.name}': speech policy ${library.speechPolicy}` +
        (library.speechPolicy === 'keep'
          ? ''
          : ' (a speech scan is queued for recordings not yet checked; they are withheld from readers until it has run)'),
    )
    return library
  }
}
