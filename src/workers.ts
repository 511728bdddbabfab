import type { ApiClient } from './api.js'

// How many job workers the server says are alive (GET /healthz, docs/decisions.md §9). undefined
// when the server does not say (the original service has no /healthz) or cannot be asked.

export async function aliveWorkers(api: ApiClient): Promise<number | undefined> {
  try {
    const res = await api.request<{ workers?: unknown }>('GET', `${api.server}/healthz`)
    const workers = res.status === 200 ? res.data?.workers : undefined
    return typeof workers === 'number' ? workers : undefined
  } catch {
    return undefined
  }
}
