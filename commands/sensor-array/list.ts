import { AuthCommand } from '../../src/baseCommand.js'
import { SENSOR_ARRAY } from '../../src/columns.js'
import { listFlags } from '../../src/listOutput.js'

export default class SensorArrayList extends AuthCommand<typeof SensorArrayList> {
  static summary = 'List your sensor arrays'
  static description =
    "Sensor arrays are their owner's: `mas media import --sensor-per-folder` makes one named after the library."
  static examples = ['<%= config.bin %> sensor-array list', '<%= config.bin %> sensor-array list --json']
  static flags = listFlags

  async run() {
    return this.showListed('sensorArray/', SENSOR_ARRAY)
  }
}
