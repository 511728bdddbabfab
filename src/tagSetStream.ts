import { ApiError, type ApiClient } from './api.js'
import { ndjsonBatches } from './ndjson.js'

// The tags of a tag set, a batch at a time, for an export: read in one answer from the NDJSON export of a
// mas server (GET tagSet/{id}/tags.ndjson, an extension), which costs the server one pass over the set;
// from a server without it (the original answers 404), by paging tagSet/{id}/tags/.

const BATCH = 1000

/** The tag set's tags in id order, a batch at a time; `onCount` hears their number when the server tells it.
 * `fields`: the only fields the caller reads, which a mas server then leaves out of the others (its records from
 * pages, or from an earlier mas, hold every field). */
export async function* tagSetTagPages<T>(
  api: ApiClient,
  tagSetId: number,
  onCount?: (count: number) => void,
  fields?: readonly string[],
): AsyncGenerator<T[]> {
  let stream: Awaited<ReturnType<ApiClient['download']>>
  try {
    stream = await api.download(`tagSet/${tagSetId}/tags.ndjson`, { query: { fields: fields?.join(',') } })
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e
    yield* api.pages<T>(`tagSet/${tagSetId}/tags/`, {}, onCount)
    return
  }
  const total = stream.response?.headers['x-total-count']
  if (typeof total === 'string') onCount?.(Number(total))
  yield* ndjsonBatches<T>(stream as AsyncIterable<Buffer>, BATCH)
}
