import type { Kysely, Selectable, Transaction } from 'kysely'
import type { Caller } from '../access.js'
import type { AppConfig } from '../config.js'
import type { Storage } from '../storage/index.js'
import type { JobsTable } from '../db/analysisTables.js'
import type { DB } from '../db/schema.js'
import type { ParamsOf, TypeParams } from './catalog.js'
import type { Learned } from './examples.js'
import type { ExecutionProvider } from './models/onnx.js'
import type { SharedWork } from './sharedWork.js'
import type { Analysis } from './threads.js'

// What a job type is: the parameters it takes (validated when the job is
// created and again when it runs) and the work it does on a claimed job.

export type JobRow = Selectable<JobsTable>

export type { ParamKind, ParamSpec } from './catalog.js'

export type ParamValues = Record<string, number | string | undefined>

export interface ChildJob {
  name: string
  typeId: number
  parameters: Record<string, string>
  /** steps the child will take, when known before it runs (so the parent's total is right from the start) */
  numToComplete?: number
}

/** A job as its type sees it while running: validated parameters (`P`: of its type, ParamsOf), and the only ways
 * to record progress. */
export interface RunningJob<P extends ParamValues = ParamValues> {
  readonly db: Kysely<DB>
  /** the row as claimed: numCompleted tells how far an earlier run got */
  readonly job: JobRow
  readonly params: P
  /** the job's owner: whose access the job runs with */
  readonly owner: Caller
  readonly config: AppConfig
  /** where media and result files live */
  readonly storage: Storage
  /** where audio is analysed: the worker's threads */
  readonly analysis: Analysis
  /** where models run (mas worker start --execution-provider) */
  readonly executionProvider: ExecutionProvider
  /** detectors learned by this worker, shared by the jobs it runs that learn from the same examples */
  readonly learned: SharedWork<Learned>
  /** aborted when a stop is requested or another worker took the job over */
  readonly signal: AbortSignal
  /** set numToComplete; `restart`: count from zero again (a resumed job that redoes its work) */
  setTotal(n: number, restart?: boolean): Promise<void>
  /** run `write` and count `n` more steps done, in one transaction, only while this worker still holds the job */
  step(n?: number, write?: (trx: Transaction<DB>) => Promise<void>): Promise<void>
  /** create child jobs (once: a resumed job finds its children already there); the job then completes with them */
  spawnChildren(children: ChildJob[]): Promise<void>
  /** wait, ending early (with an abort error) when the job is stopped */
  sleep(ms: number): Promise<void>
}

/** A job type: its declaration in the catalog, and its run, which reads the parameters that declaration gives. */
export type JobType<T extends TypeParams = TypeParams> = T & {
  run: (job: RunningJob<ParamsOf<T>>) => Promise<void>
}
