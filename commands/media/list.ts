import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/baseCommand.js'
import { listFlags } from '../../src/listOutput.js'
import { MEDIA } from '../../src/columns.js'
import { libraryId, sensorId } from '../../src/lookup.js'

export default class MediaList extends AuthCommand<typeof MediaList> {
  static summary = 'List the media files you can read, or those of one library'
  static examples = [
    '<%= config.bin %> media list --library 1',
    '<%= config.bin %> media list --library 1 --path siteA/2026-05-01/',
    '<%= config.bin %> media list --from 2026-05-01T04:00:00 --to 2026-05-01T08:00:00',
    '<%= config.bin %> media list --json',
  ]

  static flags = {
    ...listFlags,
    library: Flags.string({ char: 'l', description: 'only this library (name or id)' }),
    path: Flags.string({ description: 'only files whose alias (path below the import\'s root) starts with this, e.g. siteA/' }),
    from: Flags.string({ description: 'only recordings that started at or after this time (YYYY-MM-DDThh:mm:ss)' }),
    to: Flags.string({ description: 'only recordings that started at or before this time (YYYY-MM-DDThh:mm:ss)' }),
    sensor: Flags.string({ description: 'only files recorded by this sensor (name or id)' }),
  }

  async run() {
    const sensor = this.flags.sensor === undefined ? undefined : await sensorId(this.api, '--sensor', this.flags.sensor)
    const query = { alias__startswith: this.flags.path, realStartTime__gte: this.flags.from, realStartTime__lte: this.flags.to, sensor }
    const library = this.flags.library === undefined ? undefined : await libraryId(this.api, '--library', this.flags.library)
    const flags = { alias__startswith: '--path', realStartTime__gte: '--from', realStartTime__lte: '--to', sensor: '--sensor' }
    const files = library
      ? await this.api.all(`library/${library}/mediaFiles/`, query, flags)
      : await this.api.all('mediaFile/', query, flags)
    return this.showList(files, MEDIA)
  }
}
