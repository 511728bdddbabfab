import type { AppConfig } from '../config.js'
import { LocalStorage } from './local.js'
import { S3Storage } from './s3.js'
import type { Storage } from './storage.js'

export * from './storage.js'

// The storage a process uses, from its configuration: the bucket of MAS_STORAGE_URL, else the local
// media directory. Any number of servers may share one bucket or one media directory. A process opens
// one and hands it on (the app as its `storage` decorator, a worker as an option): a storage knows the
// uploads it is receiving, which its own sweep must leave alone.

export function openStorage(config: Pick<AppConfig, 'mediaDir' | 's3' | 'minBodyBytesPerSecond'>): Storage {
  const s3 = config.s3
  return s3 ? new S3Storage(s3, { minBytesPerSecond: config.minBodyBytesPerSecond }) : new LocalStorage(config.mediaDir)
}
