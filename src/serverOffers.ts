import type { ApiClient } from './api.js'
import { failure } from './exits.js'

// What the server offers beyond the original API (docs/decisions.md §10: `mas` works against the
// original service too). mas answers GET /healthz; the original service has no such route and
// none of mas's extensions (media import, spectrograms, `usernames`, `bearer_username`, bulk
// tag arrays, `parameters` on jobs). Asked once per process and server, only by the commands
// that need to know before they write.

const known = new Map<string, Promise<boolean>>()

/** Does the server offer mas's extensions? false for the original service (404 on /healthz). */
export function offersExtensions(api: ApiClient): Promise<boolean> {
  let answer = known.get(api.server)
  if (!answer) {
    answer = api.request('GET', `${api.server}/healthz`).then((res) => res.status !== 404)
    known.set(api.server, answer)
  }
  return answer
}

/** Refuses, in one line, what only mas offers when the server is the original service. */
export async function requireExtension(api: ApiClient, what: string): Promise<void> {
  if (!(await offersExtensions(api)))
    failure(`The server at ${api.server} does not offer ${what} (an extension of mas the original service lacks)`)
}
