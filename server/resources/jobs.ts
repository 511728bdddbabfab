import { ownedBy } from '../access.js'
import type { DB } from '../db/schema.js'
import type { Context } from '../http/endpoint.js'
import { badRequest } from '../http/errors.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { describeParams, JOB_TYPE_PARAMS } from '../analysis/catalog.js'
import { checkParameters, parametersFrom } from '../analysis/parameters.js'
import { applyRequestedStatus, QUEUED, RUNNING, STOPPED } from '../analysis/state.js'
import { jobTypes } from '../analysis/types/index.js'
import { waitingForSql } from '../analysis/waiting.js'
import { sql, type Transaction } from 'kysely'
import { JOB_PARAMETERS } from './embeddedLists.js'
import {
  defineResource,
  resourceEndpoints,
  type ComputedField,
  type Db,
  type Rec,
  type ResourceDef,
} from './resource.js'
import { jobStatusTypes, jobTypes as jobTypeRecords } from './lookups.js'
import { projects } from './project.js'
import { users } from './users.js'

// jobs/: analysis jobs and their progress. Only the owner (and site admins)
// see or change a job. A job is created Queued; its parameters come with it
// in the write-only `parameters` object, or later through jobParameters/ (the
// job then waits for them, `waitingFor`), are checked against its type, and
// need launch_job on every library and tag set they name. `requestedStatus` 5
// stops a job, 2 re-queues a stopped or failed one; what needs no worker is
// applied at once (server/analysis/state.ts).

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  name: { type: 'string', column: 'name', maxLength: 255, required: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  project: {
    type: 'pk',
    column: 'project_id',
    target: () => projects,
    nullable: true,
    default: null,
    description:
      'the project whose media files the job reads (with a library parameter: its files in that library; ' +
      'a job of such a type with neither, nor a mediaFileId, waits for a project: waitingFor)',
  },
  type: { type: 'pk', column: 'type_id', target: () => jobTypeRecords, required: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  numToComplete: { type: 'integer', column: 'num_to_complete', min: 0, default: 0 },
  numCompleted: { type: 'integer', column: 'num_completed', min: 0, default: 0 },
  fractionCompleted: { type: 'float', column: 'fraction_completed', default: 0 },
  elapsedRealTime: { type: 'float', column: 'elapsed_real_time', default: 0 },
  timeToCompletion: { type: 'float', column: 'time_to_completion', default: -1 },
  isRunning: { type: 'boolean', column: 'is_running', default: false },
  wasStopped: { type: 'boolean', column: 'was_stopped', default: false },
  isComplete: { type: 'boolean', column: 'is_complete', default: false },
  wasDeleted: { type: 'boolean', column: 'was_deleted', default: false },
  status: { type: 'pk', column: 'status_id', target: () => jobStatusTypes, default: QUEUED },
  requestedStatus: {
    type: 'pk',
    column: 'requested_status_id',
    target: () => jobStatusTypes,
    nullable: true,
    default: null,
  },
  startedDate: { type: 'datetime', column: 'started_date', nullable: true, default: null },
  lastStatusDate: { type: 'datetime', column: 'last_status_date', nullable: true, default: null },
  parentJob: { type: 'pk', column: 'parent_job_id', target: () => jobs, nullable: true, default: null },
  priority: { type: 'integer', column: 'priority', default: 0 },
  jobparameters_set: { type: 'list', items: 'object', readOnly: true, label: 'Jobparameters set' },
  workerSilentSeconds: {
    type: 'integer',
    readOnly: true,
    nullable: true,
    description:
      'extension: for a Running job whose worker let its lease run out (the worker is presumed gone, ' +
      'and the next worker to look takes the job over), the seconds since that worker last renewed it; ' +
      'isRunning is then false while status stays Running. null otherwise',
  },
  waitingFor: {
    type: 'list',
    items: 'string',
    readOnly: true,
    description:
      'extension: what the job still needs before a worker may run it: the names of required parameters ' +
      'not yet given (through jobParameters/) or needed by one given (library, with folder), and "project" for a type ' +
      'that reads media files when the job has no project, no library and no mediaFileId. Empty when it needs nothing',
  },
  parameters: {
    type: 'object',
    writeOnly: true,
    description: [
      'extension: parameter names to string values, stored as JobParameters rows of the job.',
      'A parameter with a default may be left out. With this object, every required one must be given (400 otherwise);',
      'without it, the job is created as the original creates it and waits (waitingFor) until each required one',
      'exists in jobParameters/. Parameters of the built-in types:',
      ...JOB_TYPE_PARAMS.map((t) => `${t.name} (${t.id}): ${describeParams(t).join('; ')}.`),
    ].join(' '),
  },
} satisfies TableFields<'jobs'>

/** A job (jobs/) as the API answers it. */
export type JobRecord = WireRecord<typeof fields>

/**
 * A Running job whose lease has run out has no live worker: it says so (isRunning false, workerSilentSeconds)
 * instead of looking Running until some worker takes it over. The server's clock is compared with the lease
 * the database's clock set, which hosts kept in time agree on to well under the lease.
 */
const unattended = (now: Date) => sql<boolean>`(r.status_id = ${RUNNING} and r.lease_expires < ${now}::timestamptz)`

const UNATTENDED_FIELDS: Record<string, ComputedField> = {
  isRunning: ({ now }) => sql`case when ${unattended(now)} then false else r.is_running end`,
  workerSilentSeconds: ({ now }) => sql`case when ${unattended(now)}
      then round(extract(epoch from ${now}::timestamptz - coalesce(r.lease_renewed, r.lease_expires)))::integer end`,
}

async function validateJob(ctx: Context, values: Record<string, unknown>, existing: Rec<'jobs'> | null) {
  const errors: Record<string, unknown> = {}
  const requested = values.requestedStatus
  if (typeof requested === 'number' && requested !== QUEUED && requested !== STOPPED) {
    errors.requestedStatus = ['Only 2 (Queued: run again) and 5 (Stopped: stop) may be requested.']
  }
  if (existing && values.parentJob === existing.id) errors.parentJob = ['A job cannot be its own parent.']
  let given: Record<string, string> = {}
  if (values.parameters !== undefined) {
    const parsed = parametersFrom(values.parameters)
    if ('error' in parsed) errors.parameters = [parsed.error]
    else given = parsed.params
  }
  const type = jobTypes.get((values.type as number | undefined) ?? existing?.type_id ?? 0)
  if (type && !errors.parameters) {
    // A job about to be queued (created so with a `parameters` object, or asked to run again) must have every
    // parameter its type needs; otherwise only the parameters given are checked: a job created without the
    // object waits for the rest (server/analysis/waiting.ts). Parameters the type does not know are kept.
    const queues = existing ? willRequeue(values, existing) : willQueue(values) && values.parameters !== undefined
    const all = queues && existing ? { ...(await storedParameters(ctx.db, existing.id)), ...given } : given
    const check = await checkParameters(ctx.db, ctx.caller, ctx.config, type, all, !queues)
    if (Object.keys(check.errors).length) errors.parameters = check.errors
  }
  if (Object.keys(errors).length) throw badRequest(errors)
}

/** A new job is queued unless it is created stopped (status or requestedStatus 5), e.g. to add its parameters first. */
function willQueue(values: Record<string, unknown>): boolean {
  return values.status === QUEUED && values.requestedStatus !== STOPPED
}

/** An update queues a job that is not queued when it asks for it (requestedStatus 2) or sets status 2. */
function willRequeue(values: Record<string, unknown>, existing: Rec<'jobs'>): boolean {
  return existing.status_id !== QUEUED && (values.requestedStatus === QUEUED || values.status === QUEUED)
}

async function storedParameters(db: Db, jobId: number): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('job_parameters')
    .select(['name', 'value'])
    .where('job_id', '=', jobId)
    .orderBy('id')
    .execute()
  return Object.fromEntries(rows.map((p) => [p.name, p.value]))
}

/** The `parameters` object becomes JobParameters rows: one per name, replacing the value of one already there. */
async function writeParameters(trx: Transaction<DB>, jobId: number, params: Record<string, string>) {
  for (const [name, value] of Object.entries(params)) {
    const updated = await trx
      .updateTable('job_parameters')
      .set({ value })
      .where('job_id', '=', jobId)
      .where('name', '=', name)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) === 0)
      await trx.insertInto('job_parameters').values({ job_id: jobId, name, value }).execute()
  }
}

// annotated: its own fields name it (parentJob), so its type cannot be inferred from them
export const jobs: ResourceDef<'jobs'> = defineResource({
  name: 'jobs',
  accelerated: ['detail', 'list'],
  title: 'Jobs',
  description:
    'Analysis jobs: created Queued, run by workers; requestedStatus 5 stops one, 2 re-queues a stopped or failed one.',
  table: 'jobs',
  fields,
  scope: ownedBy('user_id'),
  createScope: null,
  owner: 'user_id',
  stamps: ['creation_date'],
  computed: {
    ...UNATTENDED_FIELDS,
    // kept in the job's row (migration 2026_11_24_0004)
    [JOB_PARAMETERS.field]: sql.ref(`r.${JOB_PARAMETERS.jsonColumn}`),
    waitingFor: waitingForSql('r'),
  },
  validate: validateJob,
  afterWrite: async (trx, row, values) => {
    if (values.parameters !== undefined) {
      const given = parametersFrom(values.parameters)
      if ('params' in given) await writeParameters(trx, row.id, given.params)
    }
    if (row.requested_status_id !== null) {
      await applyRequestedStatus(trx, row.id)
      Object.assign(row, await trx.selectFrom('jobs').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow())
    }
  },
  // parameters, result rows, random windows and child jobs go with the job (foreign keys cascade);
  // the stored result files are removed once that has committed
  beforeDelete: async (trx, row, ctx) => {
    const files = await trx
      .withRecursive('family(id)', (db) =>
        db
          .selectFrom('jobs')
          .select('id')
          .where('id', '=', row.id)
          .unionAll(db.selectFrom('jobs as j').innerJoin('family as f', 'f.id', 'j.parent_job_id').select('j.id')),
      )
      .selectFrom('job_result_files')
      .select('result_file')
      .where('job_id', 'in', (eb) => eb.selectFrom('family').select('family.id'))
      .execute()
    const names = files.map((f) => f.result_file).filter((f) => f !== '')
    return async () => {
      const storage = ctx.storage
      for (const name of names) await storage.remove(name).catch(() => {})
    }
  },
})

export const endpoints = () => resourceEndpoints(jobs)
