import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, count, yesFlag } from '../../src/confirm.js'
import { sensorArrayId } from '../../src/lookup.js'

export default class SensorArrayDelete extends AuthCommand<typeof SensorArrayDelete> {
  static summary = 'Delete a sensor array (its sensors stay, in no array; asks first, --yes when not on a terminal)'
  static examples = ['<%= config.bin %> sensor-array delete "Forest grid" --yes']
  static args = { id: Args.string({ description: 'sensor array (name or id)', required: true }) }
  static flags = { yes: yesFlag }

  async run() {
    const array = await this.api.get(`sensorArray/${await sensorArrayId(this.api, 'ID', this.args.id)}/`)
    await refuseIfNotPermitted(
      this.api,
      `sensorArray/${array.id}/`,
      `sensor array ${array.id} '${array.name}'`,
      this.flags.yes,
    )
    if (!this.flags.yes) {
      await confirmDestructive(
        `delete sensor array ${array.id} '${array.name}' (${count(array.sensor_set?.length ?? 0, 'sensor')} stay, in no array)?`,
        false,
      )
    }
    await this.api.delete(`sensorArray/${array.id}/`)
    this.logToStderr(`Deleted sensor array ${array.id} '${array.name}'`)
    return { id: array.id, deleted: true }
  }
}
