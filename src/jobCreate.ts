import type { ApiClient } from './api.js'
import { failure } from './exits.js'
import type { Job } from './records.js'

// Creating a job with its parameters, on mas and on the original service (docs/decisions.md §10).
// mas takes the parameters with the job (`parameters`, an extension); the original ignores
// that field, and its parameters are JobParameters rows written one by one through
// jobParameters/. So a job with parameters is created Stopped, its parameters are written
// where the server did not take them, and only then is it queued: nothing can start it before
// its parameters are in. If any step fails the job is deleted again.

const QUEUED = 2
const STOPPED = 5

export interface NewJob {
  /** none: a job of a type that reads no project's media, or that searches a library */
  project?: number
  type: number
  name: string
  priority?: number
  parameters: Record<string, string>
}

/** A job name from its type and the time, e.g. "Test 2026-11-24 01:02:03" (the original requires a name). */
export function defaultJobName(typeName: string, now = new Date()): string {
  return `${typeName} ${now.toISOString().slice(0, 19).replace('T', ' ')}`
}

export async function createJob(api: ApiClient, job: NewJob): Promise<Job> {
  const base = {
    ...(job.project !== undefined ? { project: job.project } : {}),
    type: job.type,
    name: job.name,
    ...(job.priority !== undefined ? { priority: job.priority } : {}),
  }
  const names = Object.keys(job.parameters)
  if (names.length === 0) return api.post('jobs/', base)
  const created = await api.post('jobs/', { ...base, parameters: job.parameters, status: STOPPED })
  try {
    const taken = new Set((created.jobparameters_set ?? []).map((p) => p.name))
    for (const name of names.filter((n) => !taken.has(n))) {
      await api.post('jobParameters/', { job: created.id, name, value: job.parameters[name] })
    }
    return await api.patch(`jobs/${created.id}/`, { status: QUEUED })
  } catch (err) {
    await api.delete(`jobs/${created.id}/`).catch(() => {})
    failure(`${err instanceof Error ? err.message : String(err)} (job ${created.id} was deleted again)`)
  }
}
