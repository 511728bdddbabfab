import type { AppConfig } from '../config.js'
import { LocalStorage } from './local.js'
import { S3Storage } from './s3.js'
import type { Storage } from './storage.js'

export * from './storage.js'

// The storage a server uses, from its configuration: the bucket of MAS_STORAGE_URL, else the local
// media directory. Stateless, so any number of servers may share one bucket or one media directory.

const byPlace = new Map<string, Storage>()

export function storageFor(config: Pick<AppConfig, 'mediaDir' | 's3' | 'minBodyBytesPerSecond'>): Storage {
  const s3 = config.s3
  const place = s3 ? `s3:${JSON.stringify(s3)}:${config.minBodyBytesPerSecond}` : `dir:${config.mediaDir}`
  let s = byPlace.get(place)
  if (!s) {
    byPlace.set(place, s = s3 ? new S3Storage(s3, { minBytesPerSecond: config.minBodyBytesPerSecond }) : new LocalStorage(config.mediaDir))
  }
  return s
}
