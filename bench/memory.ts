import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// Memory of a benchmarked server, from /proc: the mas process with its
// children (node:cluster workers) and, on the embedded database, the
// PostgreSQL of its data directory with its backends. RSS counts shared
// pages once per process, so PostgreSQL's shared buffers would be counted by
// every backend; PSS (`/proc/PID/smaps_rollup`) divides each shared page among
// the processes mapping it, so the sum over a set of processes counts it once.

export interface Memory {
  rssMiB: number
  pssMiB: number
  processes: number
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const out: number[] = []
  const visit = (p: number) => {
    out.push(p)
    let children = ''
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim()
    } catch {
      return
    }
    for (const c of children ? children.split(/\s+/) : []) visit(Number(c))
  }
  visit(pid)
  return out
}

/** The postmaster of the embedded cluster of `dataDir`, from its postmaster.pid (see server/db/cluster.ts). */
export function postmasterOf(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

const kib = (text: string, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)

/** RSS and PSS summed over `pids`; processes that have gone count nothing. */
export function memoryOf(pids: number[]): Memory {
  let rss = 0,
    pss = 0,
    processes = 0
  for (const pid of new Set(pids)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
      rss += kib(rollup, 'Rss')
      pss += kib(rollup, 'Pss')
      processes++
    } catch {
      /* gone */
    }
  }
  return { rssMiB: rss / 1024, pssMiB: pss / 1024, processes }
}

/** The processes of a server: mas and its children, plus the embedded PostgreSQL of `dataDir` when one runs there. */
export function serverProcesses(pid: number, dataDir?: string): number[] {
  const postmaster = dataDir ? postmasterOf(dataDir) : undefined
  return [...processTree(pid), ...(postmaster ? processTree(postmaster) : [])]
}

/** A server's memory now (see serverProcesses). */
export function serverMemory(pid: number, dataDir?: string): Memory {
  return memoryOf(serverProcesses(pid, dataDir))
}

/** The PSS of mas alone (the process and its node:cluster workers, not its PostgreSQL), in MiB. */
export function masPssMiB(pid: number): number {
  const mas = processTree(pid).filter((p) => {
    try {
      return !/^Name:\s+postgres$/m.test(readFileSync(`/proc/${p}/status`, 'utf8'))
    } catch {
      return false
    }
  })
  return memoryOf(mas).pssMiB
}

/** The resident memory of mas: the process and its node:cluster workers, without an embedded PostgreSQL it
 * started (which serverMemory counts, by PSS), in MiB; cheap enough to sample every few ms. */
export function rssMiB(pid: number): number {
  let total = 0
  for (const p of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8')
      if (/^Name:\s+postgres$/m.test(status)) continue
      total += kib(status, 'VmRSS')
    } catch {
      /* gone */
    }
  }
  return total / 1024
}

/** The peak resident memory of one process so far (the kernel's VmHWM), in MiB; 0 once it has ended. */
export function peakRssMiB(pid: number): number {
  try {
    return kib(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmHWM') / 1024
  } catch {
    return 0
  }
}

/** Starts a process's peak resident memory again from what it holds now (Linux's clear_refs; needs the right to
 * write the process's /proc files, as its owner or root): false when it could not. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/** Sample a server's memory while `work` runs: the peaks of its mas RSS (every 20 ms) and of the PSS of
 * mas and its PostgreSQL together (every 200 ms: reading smaps_rollup walks each process's page tables). */
export async function peakMemory<T>(
  pid: number,
  dataDir: string | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; peak: number; before: number; peakPss: number; beforePss: number }> {
  const before = rssMiB(pid)
  const beforePss = serverMemory(pid, dataDir).pssMiB
  let peak = before,
    peakPss = beforePss
  const rss = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid))
  }, 20)
  const pss = setInterval(() => {
    peakPss = Math.max(peakPss, serverMemory(pid, dataDir).pssMiB)
  }, 200)
  try {
    const result = await work()
    return {
      result,
      peak: Math.max(peak, rssMiB(pid)),
      before,
      peakPss: Math.max(peakPss, serverMemory(pid, dataDir).pssMiB),
      beforePss,
    }
  } finally {
    clearInterval(rss)
    clearInterval(pss)
  }
}
