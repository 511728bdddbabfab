import type { Provenance } from '../db/schema.js'
import { MAS_VERSION } from '../version.js'
import type { ParamValues, RunningJob } from './jobType.js'

// What made the tags a job writes (docs/decisions.md, "Provenance"): the job type the user launched, mas's
// version, the job (the one launched, when a child of it does the work) and its parameters.

/** The provenance of the tags `job` writes, as the JSON text the column takes; `typeName`: the type launched;
 * `chosen`: parameters the job chose for itself (a random seed), so the provenance says how to make the tags again. */
export function jobProvenance(typeName: string, job: RunningJob, chosen: ParamValues = {}): string {
  const provenance: Provenance = {
    source: `mas ${typeName}`,
    version: MAS_VERSION,
    job: job.job.parent_job_id ?? job.job.id,
    parameters: { ...job.params, ...chosen },
  }
  return JSON.stringify(provenance)
}

/** The provenance of the tags a model writes for `job`: the model's name, its own version and its file's md5. */
export function modelProvenance(model: { name: string; version: string; md5: string }, job: RunningJob): string {
  const provenance: Provenance = {
    source: `model ${model.name}`,
    version: model.version,
    checksum: `md5:${model.md5}`,
    job: job.job.parent_job_id ?? job.job.id,
    parameters: job.params,
    mas: MAS_VERSION,
  }
  return JSON.stringify(provenance)
}

/** The provenance of the tags a built-in model writes for `job` (the speech detector): mas's job type and the
 * model's own name and version. */
export function builtInModelProvenance(typeName: string, model: string, job: RunningJob): string {
  const provenance: Provenance = {
    source: `mas ${typeName}`,
    version: MAS_VERSION,
    model,
    job: job.job.parent_job_id ?? job.job.id,
    parameters: job.params,
  }
  return JSON.stringify(provenance)
}
