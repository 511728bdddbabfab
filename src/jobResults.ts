import type { ApiClient } from './api.js'
import type { JobResultFile } from './records.js'

// A job's result files. The original service ignores `?job=` on jobResultFile/ and lists every result file the
// caller may read, so the list is filtered here as well.

export async function resultFilesOf(api: ApiClient, job: number): Promise<JobResultFile[]> {
  return (await api.all('jobResultFile/', { job })).filter((f) => f.job === job)
}
