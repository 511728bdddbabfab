import type { ApiClient } from './api.js'

// `mas media import --sensor-per-folder`: each recorder folder (the first folder below the import's root)
// is a Sensor of that name, in a SensorArray named after the library; both are reused when they exist
// (the caller's own, as sensors are private to their owner), so re-running an import maps the same folders
// to the same sensors.

/** The sensor id of each folder, created where missing. */
export async function sensorsForFolders(
  api: ApiClient,
  arrayName: string,
  folders: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  if (!folders.length) return out
  const arrays = await api.all('sensorArray/')
  const array =
    arrays.find((a) => a.name === arrayName) ?? (await api.post('sensorArray/', { name: arrayName.slice(0, 255) }))
  const members = (await api.all('sensor/')).filter((s) => s.sensorArray === array.id)
  for (const folder of [...new Set(folders)].sort()) {
    const sensor =
      members.find((s) => s.name === folder) ??
      (await api.post('sensor/', { name: folder.slice(0, 255), sensorArray: array.id }))
    out.set(folder, sensor.id)
  }
  return out
}
