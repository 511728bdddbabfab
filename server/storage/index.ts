import type { AppConfig } from '../config.js'
import { LocalStorage } from './local.js'
import type { Storage } from './storage.js'

export * from './storage.js'

// The storage a server uses, from its configuration. Stateless, so any number
// of servers may share one media directory.

const byRoot = new Map<string, Storage>()

export function storageFor(config: Pick<AppConfig, 'mediaDir'>): Storage {
  let s = byRoot.get(config.mediaDir)
  if (!s) byRoot.set(config.mediaDir, s = new LocalStorage(config.mediaDir))
  return s
}
