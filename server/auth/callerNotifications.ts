import type { FastifyBaseLogger } from 'fastify'
import pg from 'pg'
import type { CallerCache } from './callerCache.js'

// Listening for changes to users, tokens and sessions made anywhere: the database announces each on
// the channel `mas_callers` with the user's id (triggers of migration 2026_11_24_0001), and the
// remembered callers of that user are dropped, so a change takes effect on every server within the
// delay of a notification. The listening connection is one of its own, outside the pool. Until it
// listens, and whenever it is lost, the server remembers no caller at all (docs/architecture.md),
// and it connects again after a pause.

export const CALLERS_CHANNEL = 'mas_callers'
const RETRY_MS = [250, 1000, 2000, 5000]
/** the listening connection's application_name, as pg_stat_activity shows it */
export const LISTENER_NAME = 'mas caller changes'

/** Listen for changes on behalf of the callers `cache` remembers; the answer stops listening. */
export function listenForCallerChanges(url: string, cache: CallerCache, log: FastifyBaseLogger): () => Promise<void> {
  cache.setDeaf(true)
  let client: pg.Client | undefined
  let stopped = false
  let failures = 0
  let retry: NodeJS.Timeout | undefined

  const lost = (err?: Error) => {
    const was = client
    client = undefined
    cache.setDeaf(true)
    was?.removeAllListeners()
    was?.on('error', () => {})
    was?.end().catch(() => {})
    if (stopped) return
    if (err)
      log.warn({ err }, 'lost the connection listening for user changes: remembering no callers until it is back')
    const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]
    retry = setTimeout(connect, wait)
    retry.unref()
  }

  const connect = () => {
    if (stopped) return
    // TCP keepalive finds a peer gone silently (a host lost); entries still expire after CALLER_CACHE_SECONDS
    const c = new pg.Client({
      connectionString: url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: LISTENER_NAME,
    })
    client = c
    c.on('error', (err) => {
      if (client === c) lost(err)
    })
    c.on('end', () => {
      if (client === c) lost(new Error('the connection ended'))
    })
    c.on('notification', (n) => {
      if (n.channel !== CALLERS_CHANNEL) return
      const id = Number(n.payload)
      if (n.payload && Number.isSafeInteger(id)) cache.forgetUser(id)
      else cache.forget()
    })
    c.connect()
      .then(() => c.query(`LISTEN ${CALLERS_CHANNEL}`))
      .then(() => {
        if (client !== c) return
        failures = 0
        cache.setDeaf(false)
      })
      .catch((err) => {
        if (client === c) lost(err)
      })
  }

  connect()
  return async () => {
    stopped = true
    if (retry) clearTimeout(retry)
    const c = client
    client = undefined
    cache.setDeaf(true)
    await c?.end().catch(() => {})
  }
}
