import type { AppConfig } from '../config.js'
import type { Storage } from './storage.js'

// The storage of a configuration, as openStorage (index.ts) makes it, but loading the S3 client only
// for a bucket: for analysis threads, which start often and mostly read a local media directory
// (loading the S3 client cost a thread 0.12 s of CPU).

export async function openStorageLazily(
  config: Pick<AppConfig, 'mediaDir' | 's3' | 'minBodyBytesPerSecond'>,
): Promise<Storage> {
  const s3 = config.s3
  if (s3) return new (await import('./s3.js')).S3Storage(s3, { minBytesPerSecond: config.minBodyBytesPerSecond })
  return new (await import('./local.js')).LocalStorage(config.mediaDir)
}
