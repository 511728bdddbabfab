import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { listFlags } from '../../src/list-output.js'
import { MEDIA } from '../../src/columns.js'

export default class MediaList extends AuthCommand<typeof MediaList> {
  static summary = 'List the media files you can read, or those of one library'
  static examples = ['<%= config.bin %> media list --library 3', '<%= config.bin %> media list --json']
  static flags = { ...listFlags, library: Flags.integer({ char: 'l', description: 'only this library', min: 1 }) }

  async run() {
    const files = this.flags.library
      ? await this.api.all(`library/${this.flags.library}/mediaFiles/`)
      : await this.api.all('mediaFile/')
    return this.showList(files, MEDIA)
  }
}
