import { StringDecoder } from 'node:string_decoder'

// Records of a stream of JSON lines (NDJSON), parsed a batch at a time. Lines are cut from each chunk as it comes
// (readline's events cost more than the parse of the records); an empty line, or a lone CR, is passed over.

export async function* ndjsonBatches<T>(chunks: AsyncIterable<Buffer>, batchSize: number): AsyncGenerator<T[]> {
  const decoder = new StringDecoder('utf8')
  let batch: T[] = []
  let rest = ''
  const take = (line: string) => {
    if (line && line !== '\r') batch.push(JSON.parse(line) as T)
  }
  for await (const chunk of chunks) {
    const text = rest + decoder.write(chunk)
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start))
      take(text.slice(start, end))
    rest = text.slice(start)
    if (batch.length >= batchSize) {
      yield batch
      batch = []
    }
  }
  take(rest + decoder.end())
  if (batch.length) yield batch
}
