import { ApiError, type ApiClient } from './api.js'
import type { Query } from './query.js'
import { ndjsonBatches } from './ndjson.js'
import type { Review } from './records.js'

// The tags of a tag set, a batch at a time, and the decisions on them, for an export: read in one answer from the
// NDJSON exports of a mas server (GET tagSet/{id}/tags.ndjson and reviews.ndjson, extensions), which cost the
// server one pass over the set; from a server without them (the original answers 404), by paging
// tagSet/{id}/tags/ and tagReview/?tagSet= (whose pages of a large set each cost the server a count and an offset).

const BATCH = 1000

type Download = Awaited<ReturnType<ApiClient['download']>>

/** The answer of a mas server's NDJSON export at `path`; undefined from a server that answers 404 (the original). */
async function ndjsonExport(api: ApiClient, path: string, query?: Query): Promise<Download | undefined> {
  try {
    return await api.download(path, { query })
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return undefined
    throw e
  }
}

/** The tag set's tags in id order, a batch at a time; `onCount` hears their number when the server tells it.
 * `fields`: the only fields the caller reads, which a mas server then leaves out of the others (its records from
 * pages, or from an earlier mas, hold every field). */
export async function* tagSetTagPages<T>(
  api: ApiClient,
  tagSetId: number,
  onCount?: (count: number) => void,
  fields?: readonly string[],
): AsyncGenerator<T[]> {
  const stream = await ndjsonExport(api, `tagSet/${tagSetId}/tags.ndjson`, { fields: fields?.join(',') })
  if (!stream) {
    yield* api.pages<T>(`tagSet/${tagSetId}/tags/`, {}, onCount)
    return
  }
  const total = stream.response?.headers['x-total-count']
  if (typeof total === 'string') onCount?.(Number(total))
  yield* ndjsonBatches<T>(stream as AsyncIterable<Buffer>, BATCH)
}

/** Every decision on the tag set's tags, in id order as tagReview/ lists them; from a server without the NDJSON
 * export, `ahead` pages of tagReview/ asked for at once (ApiClient.pages). */
export async function tagSetReviews(api: ApiClient, tagSetId: number, ahead = 1): Promise<Review[]> {
  const stream = await ndjsonExport(api, `tagSet/${tagSetId}/reviews.ndjson`)
  if (!stream) return api.all('tagReview/', { tagSet: tagSetId, page_size: BATCH }, undefined, ['tagSet'], ahead)
  const reviews: Review[] = []
  for await (const batch of ndjsonBatches<Review>(stream as AsyncIterable<Buffer>, BATCH)) reviews.push(...batch)
  // the export holds a tag's decisions together
  return reviews.sort((a, b) => a.id - b.id)
}
