import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'

export default class MediaDelete extends AuthCommand<typeof MediaDelete> {
  static summary = 'Delete a media file (needs admin on its library)'
  static examples = ['<%= config.bin %> media delete 345']
  static args = { id: Args.integer({ description: 'media file id', required: true, min: 1 }) }

  async run() {
    await this.api.delete(`mediaFile/${this.args.id}/`)
    this.logToStderr(`Deleted media file ${this.args.id}`)
    return { id: this.args.id, deleted: true }
  }
}
