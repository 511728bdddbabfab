import { ownedVia } from '../access.js'
import type { Context } from '../http/endpoint.js'
import { fieldError } from '../http/errors.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { checkParameters } from '../analysis/parameters.js'
import { jobTypes } from '../analysis/types/index.js'
import { defineResource, resourceEndpoints, type Rec } from './resource.js'
import { jobs } from './jobs.js'

// jobParameters/: one named string value of a job, seen and changed only by
// the job's owner (and site admins). A value the job's type knows is checked
// as it would be on the job itself.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  job: { type: 'pk', column: 'job_id', target: () => jobs, required: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  value: { type: 'string', column: 'value', allowBlank: true, default: '' },
} satisfies TableFields<'job_parameters'>

/** A job's parameter (jobParameters/) as the API answers it. */
export type JobParametersRecord = WireRecord<typeof fields>

async function validateParameter(
  ctx: Context,
  values: Record<string, unknown>,
  existing: Rec<'job_parameters'> | null,
) {
  const jobId = (values.job as number | undefined) ?? existing?.job_id
  const name = (values.name as string | undefined) ?? existing?.name
  const value = (values.value as string | undefined) ?? existing?.value ?? ''
  if (jobId === undefined || name === undefined) return
  const job = await ctx.db.selectFrom('jobs').select('type_id').where('id', '=', jobId).executeTakeFirst()
  const type = job && jobTypes.get(job.type_id)
  if (!type || !(name in type.params)) return
  const check = await checkParameters(ctx.db, ctx.caller, ctx.config, type, { [name]: value }, true)
  const problem = check.errors[name]
  if (problem) throw fieldError('value', `${name}: ${problem[0]}`)
}

export const jobParameters = defineResource({
  name: 'jobParameters',
  title: 'Job Parameters',
  description: 'Parameters of jobs the caller owns; values are always strings.',
  table: 'job_parameters',
  fields,
  scope: ownedVia('job_id', 'jobs'),
  validate: validateParameter,
})

export const endpoints = () => resourceEndpoints(jobParameters)
