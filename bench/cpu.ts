import { readFileSync } from 'node:fs'

// CPU time of processes from /proc, for figures the machine's load changes less than it changes rates.

const TICKS_PER_SECOND = 100

/** utime + stime of `pids` in seconds; processes that have gone count nothing. With `reaped`, also the CPU of the
 * children each has waited for (cutime + cstime): a PostgreSQL backend that has ended counts in its postmaster's. */
export function cpuSecondsOf(pids: number[], reaped = false): number {
  let ticks = 0
  for (const pid of new Set(pids)) {
    try {
      // the fields after the command name, which may hold spaces, start after its closing parenthesis
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
      if (reaped) ticks += Number(fields[13]) + Number(fields[14])
    } catch {
      /* gone */
    }
  }
  return ticks / TICKS_PER_SECOND
}

/** The CPU of this process's children that have ended and been waited for, in seconds (a CLI run to its end). */
export const reapedCpuSeconds = () => cpuSecondsOf([process.pid], true) - cpuSecondsOf([process.pid])

/** This process's CPU time (user and system) in seconds. */
export const ownCpuSeconds = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
