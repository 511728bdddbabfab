import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { forgetOldFailures, loginLimits } from './auth/throttle.js'
import { foldCrowdedBandCounts } from './analysis/bandCounts.js'
import type { AppConfig } from './config.js'
import type { DB } from './db/schema.js'
import { FOLD_EVERY_MS, foldCrowdedTagSets } from './resources/tagSetCount.js'
import type { Storage } from './storage/index.js'

// Housekeeping every server does while it runs, on timers that never keep the
// process alive: folding tag set counts, forgetting login failures that have
// left their window, and removing uploads abandoned by a process that died.

/** sweeps at least this often, and at least twice within the abandoned-upload age */
const SWEEP_EVERY_MS = 60_000

/**
 * How long an upload's file may go unchanged before it counts as abandoned: well past the longest a live
 * upload can stay silent. A connection silent for the idle timeout is closed, and a body must deliver its
 * minimum bytes within each rate window, so a live upload writes within the longer of the idle timeout and
 * two windows; twice that leaves room for the disk and the clock (4 minutes with the default timeouts).
 */
export function abandonedUploadMs(config: Pick<AppConfig, 'idleTimeoutSeconds' | 'bodyRateWindowSeconds'>): number {
  return 2 * Math.max(config.idleTimeoutSeconds, 2 * config.bodyRateWindowSeconds) * 1000
}

/** Starts the timers; the answer stops them. */
export function startMaintenance(
  db: Kysely<DB>,
  config: AppConfig,
  storage: Storage,
  log: FastifyBaseLogger,
): () => void {
  const folding = setInterval(() => {
    foldCrowdedTagSets(db).catch((err) => log.warn({ err }, 'folding tag set counts failed'))
    foldCrowdedBandCounts(db).catch((err) => log.warn({ err }, 'folding tag counts by band failed'))
  }, FOLD_EVERY_MS).unref()
  const sweeping = setInterval(
    () => {
      forgetOldFailures(db, loginLimits(config)).catch((err) =>
        log.warn({ err }, 'forgetting old login failures failed'),
      )
      storage
        .sweepIncoming(abandonedUploadMs(config))
        .then((removed) => {
          if (removed) log.info({ removed }, 'removed abandoned uploads')
        })
        .catch((err) => log.warn({ err }, 'sweeping abandoned uploads failed'))
    },
    Math.min(SWEEP_EVERY_MS, abandonedUploadMs(config) / 2),
  ).unref()
  return () => {
    clearInterval(folding)
    clearInterval(sweeping)
  }
}
