// What a lost or unreachable database looks like from here (a restart, a failover, an administrator's
// pg_terminate_backend, a server not accepting connections yet): the request or job step that met it may
// be tried again once the database answers; it says nothing about the request itself.

/** SQLSTATEs of a database that was reached but ended the session or is starting or stopping */
const ENDED_CODES = ['57P01', '57P02', '57P03']
/** SQLSTATEs of a session ended by the server, or a server that cannot take connections now */
const SERVER_CODES = new Set([...ENDED_CODES, '08000', '08001', '08003', '08004', '08006', '53300'])
/** socket errors of a connection that was made, then cut */
const CUT_CODES = ['ECONNRESET', 'EPIPE']
/** socket errors of a connection that could not be made or was cut */
const SOCKET_CODES = new Set([...CUT_CODES, 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])
/** node-postgres's own messages for a connection it lost */
const CUT_MESSAGES = /^(Connection terminated|Client has encountered a connection error)/
/** … or could not make in time */
const CLIENT_MESSAGES = new RegExp(
  `${CUT_MESSAGES.source}|^(timeout exceeded when trying to connect|Client was closed and is not queryable)`,
)

/** True when `e` says the database connection was lost or could not be made. */
export function isConnectionLost(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false
  const { code, syscall, message } = e as { code?: unknown; syscall?: unknown; message?: unknown }
  if (typeof code === 'string' && SERVER_CODES.has(code)) return true
  // a socket that could not connect (ENOENT: the Unix socket of a stopped cluster is gone)
  if (syscall === 'connect' && typeof code === 'string') return true
  if (
    typeof code === 'string' &&
    SOCKET_CODES.has(code) &&
    (syscall === 'read' || syscall === 'write' || syscall === undefined)
  )
    return true
  return typeof message === 'string' && CLIENT_MESSAGES.test(message)
}

/** True when `e` says a database that answered ended the session (or is restarting): unlike a connection
 * that cannot be made at all (a wrong address), worth waiting for when a process starts. */
export function isSessionEnded(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false
  const { code, syscall, message, cause } = e as {
    code?: unknown
    syscall?: unknown
    message?: unknown
    cause?: unknown
  }
  if (typeof code === 'string' && ENDED_CODES.includes(code)) return true
  // a connection that was made, then cut under a query (the server ended it while the client wrote or read)
  if (typeof code === 'string' && CUT_CODES.includes(code) && syscall !== 'connect') return true
  if (typeof message === 'string' && CUT_MESSAGES.test(message)) return true
  return isSessionEnded(cause) // a step's own error, made of the database's
}
