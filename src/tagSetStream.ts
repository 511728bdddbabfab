import { StringDecoder } from 'node:string_decoder'
import { ApiError, type ApiClient } from './api.js'

// The tags of a tag set, a batch at a time, for an export: read in one answer from the NDJSON export of a
// mas server (GET tagSet/{id}/tags.ndjson, an extension), which costs the server one pass over the set;
// from a server without it (the original answers 404), by paging tagSet/{id}/tags/.

const BATCH = 1000

/** The tag set's tags in id order; `onCount` hears their number when the server tells it. */
export async function* tagSetTagPages<T>(
  api: ApiClient,
  tagSetId: number,
  onCount?: (count: number) => void,
): AsyncGenerator<T[]> {
  let stream: Awaited<ReturnType<ApiClient['download']>>
  try {
    stream = await api.download(`tagSet/${tagSetId}/tags.ndjson`)
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e
    yield* api.pages<T>(`tagSet/${tagSetId}/tags/`, {}, onCount)
    return
  }
  const total = stream.response?.headers['x-total-count']
  if (typeof total === 'string') onCount?.(Number(total))
  // lines are cut from each chunk as it comes (readline's events cost more than the parse of the records)
  const decoder = new StringDecoder('utf8')
  let batch: T[] = []
  let rest = ''
  const take = (line: string) => {
    if (line && line !== '\r') batch.push(JSON.parse(line) as T)
  }
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = rest + decoder.write(chunk)
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start))
      take(text.slice(start, end))
    rest = text.slice(start)
    if (batch.length >= BATCH) {
      yield batch
      batch = []
    }
  }
  take(rest + decoder.end())
  if (batch.length) yield batch
}
