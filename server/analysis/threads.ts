import { availableParallelism } from 'node:os'
import { MessageChannel } from 'node:worker_threads'
import { Piscina } from 'piscina'
import type { ScanResult } from './scan.js'
import scanTask, { type ScanTask } from './scanTask.js'

// Where analysis runs (docs/decisions.md §20): a pool of worker threads (piscina), or, with no threads,
// the worker's own thread. A long file is cut into stretches of whole blocks, one task each, so every
// thread of the pool works on it; the tasks of files analysed at once share the pool.

export interface Analysis {
  /** threads scans run on (0: the calling thread) */
  readonly threads: number
  /** `onBlocks`: told how many more blocks were scanned, as they are (not after the task has ended) */
  scan(task: Omit<ScanTask, 'progress'>, signal?: AbortSignal, onBlocks?: (n: number) => void): Promise<ScanResult>
  close(): Promise<void>
}

/** Threads for `mas worker start`: every core. */
export const allCores = (): number => availableParallelism()
/** Threads for the worker inside `mas server start`: a core is left to the API. */
export const coresButOne = (): number => Math.max(1, availableParallelism() - 1)

export function analysisThreads(threads: number): Analysis {
  if (threads <= 0) {
    return {
      threads: 0,
      scan: (task, _signal, onBlocks) =>
        scanTask(onBlocks ? { ...task, progress: { postMessage: (n: number) => onBlocks(n) } } : task),
      close: async () => {},
    }
  }
  const pool = new Piscina<ScanTask, ScanResult>({
    filename: new URL('./scanTask.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: threads,
    // an idle thread ends after a while, giving back its memory
    idleTimeout: 30_000,
  })
  return {
    threads,
    scan: (task, signal, onBlocks) => {
      if (!onBlocks) return pool.run(task, signal ? { signal } : {})
      // the thread tells its blocks over a port of its own; closed when the task ends, so nothing is heard after
      const { port1, port2 } = new MessageChannel()
      let open = true
      port1.on('message', (n: number) => {
        if (open) onBlocks(n)
      })
      return pool
        .run({ ...task, progress: port2 }, { ...(signal ? { signal } : {}), transferList: [port2] })
        .finally(() => {
          open = false
          port1.close()
        })
    },
    close: () => pool.destroy(),
  }
}

/** Blocks [from, to) for each of up to `parts` tasks over a file of `blocks` blocks. */
export function splitBlocks(blocks: number, parts: number): Array<[number, number]> {
  const n = Math.max(1, Math.min(blocks, parts))
  return Array.from(
    { length: n },
    (_, i) => [Math.floor((i * blocks) / n), Math.floor(((i + 1) * blocks) / n)] as [number, number],
  )
}
