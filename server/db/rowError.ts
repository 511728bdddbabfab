// PostgreSQL's errors by what caused them.

/** Did the batch fail for what one of its rows holds, as a whole (nothing of it written)? PostgreSQL's
 * errors of data (22), integrity (23), a transaction rolled back (40) and those raised by a trigger (P0);
 * anything else (a lost connection, a fault of the statement itself) is every request's error. */
export function rowError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'string' && ['22', '23', '40', 'P0'].includes(code.slice(0, 2))
}
