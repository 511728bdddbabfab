import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'

export default class SensorArrayCreate extends AuthCommand<typeof SensorArrayCreate> {
  static summary = 'Create a sensor array (a set of recorders laid out in rows and columns); prints its id'
  static examples = ['<%= config.bin %> sensor-array create "Forest grid" --rows 2 --columns 3']
  static args = { name: Args.string({ description: 'array name', required: true }) }
  static flags = {
    rows: Flags.integer({ description: 'layout rows', default: 1, min: 1 }),
    columns: Flags.integer({ description: 'layout columns', default: 1, min: 1 }),
  }

  async run() {
    const array = await this.api.post('sensorArray/', {
      name: this.args.name,
      layoutRows: this.flags.rows,
      layoutColumns: this.flags.columns,
    })
    this.log(String(array.id))
    return array
  }
}
