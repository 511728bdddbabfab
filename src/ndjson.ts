import { StringDecoder } from 'node:string_decoder'

// Records of a stream of JSON lines (NDJSON), parsed a batch at a time. Lines are cut from each chunk as it comes
// (readline's events cost more than the parse of the records); an empty line, or a lone CR, is passed over.

/** A batch of records, with the text of the lines they were read from (any empty line among them included) when
 * it was asked for. */
export interface NdjsonBatch<T> {
  records: T[]
  text?: string
}

export async function* ndjsonBatches<T>(chunks: AsyncIterable<Buffer>, batchSize: number): AsyncGenerator<T[]> {
  for await (const batch of ndjsonBatchesWithText<T>(chunks, batchSize, false)) yield batch.records
}

/** As ndjsonBatches, each batch with its lines' text too when `keepText` (for a copy kept as it came, src/spool.ts). */
export async function* ndjsonBatchesWithText<T>(
  chunks: AsyncIterable<Buffer>,
  batchSize: number,
  keepText: boolean,
): AsyncGenerator<NdjsonBatch<T>> {
  const decoder = new StringDecoder('utf8')
  let records: T[] = []
  let text = ''
  let rest = ''
  const take = (line: string) => {
    if (line && line !== '\r') records.push(JSON.parse(line) as T)
  }
  for await (const chunk of chunks) {
    const chunkText = rest + decoder.write(chunk)
    let start = 0
    for (let end = chunkText.indexOf('\n'); end >= 0; start = end + 1, end = chunkText.indexOf('\n', start))
      take(chunkText.slice(start, end))
    rest = chunkText.slice(start)
    if (keepText && start > 0) text += chunkText.slice(0, start)
    if (records.length >= batchSize) {
      yield keepText ? { records, text } : { records }
      records = []
      text = ''
    }
  }
  const last = rest + decoder.end()
  take(last)
  if (keepText && last) text += `${last}\n`
  if (records.length) yield keepText ? { records, text } : { records }
}
