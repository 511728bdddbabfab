import { ownedBy, sensorOwnedOrRecorded } from '../access.js'
import { toJson, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { users } from './users.js'

// sensor/ and sensorArray/: records only their owner (and site admins) see and
// change. A sensor names its owner only in the user_id column (no `user` wire
// field); a sensor may join only a sensor array its creator can read, which
// the reference check of `sensorArray` enforces. A sensor array embeds its
// sensors as `sensor_set`.

const sensorFields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  // required, as the original requires it; null (a sensor in no array) is our extension
  sensorArray: { type: 'pk', column: 'sensor_array_id', target: () => sensorArrays, nullable: true, required: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  x: { type: 'float', column: 'x', default: 0 },
  y: { type: 'float', column: 'y', default: 0 },
  z: { type: 'float', column: 'z', default: 0 },
  layoutRow: { type: 'integer', column: 'layout_row', default: 0, min: 0 },
  layoutColumn: { type: 'integer', column: 'layout_column', default: 0, min: 0 },
} satisfies TableFields<'sensors'>

/** A sensor as the API answers it. */
export type SensorRecord = WireRecord<typeof sensorFields>

export const sensors = defineResource({
  name: 'sensor',
  title: 'Sensor',
  table: 'sensors',
  fields: sensorFields,
  scope: sensorOwnedOrRecorded('user_id', 'id'),
  owner: 'user_id',
})

const sensorArrayFields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  layoutRows: { type: 'integer', column: 'layout_rows', default: 1, min: 1 },
  layoutColumns: { type: 'integer', column: 'layout_columns', default: 1, min: 1 },
  sensor_set: { type: 'list', items: 'object', readOnly: true, label: 'Sensor set' },
} satisfies TableFields<'sensor_arrays'>

/** A sensor array as the API answers it, its sensors embedded. */
export type SensorArrayRecord = Omit<WireRecord<typeof sensorArrayFields>, 'sensor_set'> & {
  sensor_set: SensorRecord[]
}

export const sensorArrays = defineResource({
  name: 'sensorArray',
  title: 'Sensor Array',
  table: 'sensor_arrays',
  fields: sensorArrayFields,
  scope: ownedBy('user_id'),
  owner: 'user_id',
  // the sensors of a whole page in one query
  embed: async (db, rows) => {
    const members = await db
      .selectFrom('sensors')
      .selectAll()
      .where(
        'sensor_array_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('id')
      .execute()
    const byArray = new Map<number, unknown[]>(rows.map((r) => [r.id, []]))
    for (const s of members) byArray.get(s.sensor_array_id!)?.push(toJson(sensors.compiled.fields, s))
    for (const r of rows) r.sensor_set = byArray.get(r.id)
  },
})

export const endpoints = () => [...resourceEndpoints(sensors), ...resourceEndpoints(sensorArrays)]
