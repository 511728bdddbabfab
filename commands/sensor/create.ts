import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { sensorArrayId } from '../../src/lookup.js'

export default class SensorCreate extends AuthCommand<typeof SensorCreate> {
  static summary = 'Create a sensor (a recorder), in a sensor array or none; prints its id'
  static examples = [
    '<%= config.bin %> sensor create SM4-03 --array "Forest grid" --row 1 --column 2',
    '<%= config.bin %> sensor create AudioMoth-17',
  ]
  static args = { name: Args.string({ description: 'sensor name', required: true }) }
  static flags = {
    array: Flags.string({ description: 'sensor array (name or id)' }),
    row: Flags.integer({ description: 'layout row in the array', min: 0 }),
    column: Flags.integer({ description: 'layout column in the array', min: 0 }),
    x: Flags.string({ description: 'position x' }),
    y: Flags.string({ description: 'position y' }),
    z: Flags.string({ description: 'position z' }),
  }

  async run() {
    const f = this.flags
    const sensorArray = f.array === undefined ? undefined : await sensorArrayId(this.api, '--array', f.array)
    const sensor = await this.api.post('sensor/', {
      name: this.args.name,
      sensorArray: sensorArray ?? null, // none: the field is still required, as the original requires it
      ...(f.row !== undefined ? { layoutRow: f.row } : {}),
      ...(f.column !== undefined ? { layoutColumn: f.column } : {}),
      ...(f.x !== undefined ? { x: f.x } : {}),
      ...(f.y !== undefined ? { y: f.y } : {}),
      ...(f.z !== undefined ? { z: f.z } : {}),
    })
    this.log(String(sensor.id))
    return sensor
  }
}
