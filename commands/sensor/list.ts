import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { SENSOR } from '../../src/columns.js'
import { listFlags } from '../../src/listOutput.js'
import { libraryId, sensorArrayId } from '../../src/lookup.js'

export default class SensorList extends AuthCommand<typeof SensorList> {
  static summary = "List your sensors, or those of one array or of the folders of one library's import"
  static description =
    '`mas media import --sensor-per-folder` makes a sensor per recorder folder in an array named after the library: --library lists those.'
  static examples = [
    '<%= config.bin %> sensor list',
    '<%= config.bin %> sensor list --library 1',
    '<%= config.bin %> sensor list --array "Forest grid" --json',
  ]
  static flags = {
    ...listFlags,
    array: Flags.string({ description: 'only the sensors of this sensor array (name or id)', exclusive: ['library'] }),
    library: Flags.string({
      char: 'l',
      description: 'only the sensors of the array named after this library (name or id)',
    }),
  }

  async run() {
    const array =
      this.flags.array !== undefined
        ? await sensorArrayId(this.api, '--array', this.flags.array)
        : this.flags.library !== undefined
          ? await this.libraryArray(this.flags.library)
          : undefined
    const sensors = await this.api.all('sensor/', array === undefined ? {} : { sensorArray: array })
    return this.showList(array === undefined ? sensors : sensors.filter((s) => s.sensorArray === array), SENSOR)
  }

  /** The array the folder sensors of a library's import belong to: named after the library. */
  private async libraryArray(value: string): Promise<number> {
    const library = await this.api.get(`library/${await libraryId(this.api, '--library', value)}/`)
    const arrays = await this.api.all('sensorArray/')
    const array = arrays.find((a) => a.name === library.name)
    if (!array)
      this.error(`--library: no sensor array named "${library.name}" (an import with --sensor-per-folder makes one)`, {
        exit: 1,
      })
    return array.id
  }
}
