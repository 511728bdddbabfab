import type { ApiClient } from './api.js'

// A job's result files. The original service ignores `?job=` on jobResultFile/ and lists every result file the
// caller may read, so the list is filtered here as well.

export interface ResultFileRow {
  id: number
  job: number
  notes?: string
  resultFile?: string
  creationDate?: string
}

export async function resultFilesOf(api: ApiClient, job: number): Promise<ResultFileRow[]> {
  return (await api.all<ResultFileRow>('jobResultFile/', { job })).filter((f) => f.job === job)
}
