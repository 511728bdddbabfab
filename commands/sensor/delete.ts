import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, count, recordCount, yesFlag } from '../../src/confirm.js'
import { sensorId } from '../../src/lookup.js'

export default class SensorDelete extends AuthCommand<typeof SensorDelete> {
  static summary = 'Delete a sensor (its media files stay, with no sensor; asks first, --yes when not on a terminal)'
  static examples = ['<%= config.bin %> sensor delete AudioMoth-17 --yes']
  static args = { id: Args.string({ description: 'sensor (name or id)', required: true }) }
  static flags = { yes: yesFlag }

  async run() {
    const sensor = await this.api.get(`sensor/${await sensorId(this.api, 'ID', this.args.id)}/`)
    await refuseIfNotPermitted(this.api, `sensor/${sensor.id}/`, `sensor ${sensor.id} '${sensor.name}'`, this.flags.yes)
    if (!this.flags.yes) {
      const files = await recordCount(this.api, 'mediaFile/', { sensor: sensor.id })
      await confirmDestructive(
        `delete sensor ${sensor.id} '${sensor.name}' (${count(files, 'media file')} keep no sensor)?`,
        false,
      )
    }
    await this.api.delete(`sensor/${sensor.id}/`)
    this.logToStderr(`Deleted sensor ${sensor.id} '${sensor.name}'`)
    return { id: sensor.id, deleted: true }
  }
}
