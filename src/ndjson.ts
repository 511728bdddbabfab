import { StringDecoder } from 'node:string_decoder'

// Records of a stream of JSON lines (NDJSON), parsed a batch at a time. Lines are cut from each chunk as it comes
// (readline's events cost more than the parse of the records); an empty line, or a lone CR, is passed over.

export async function* ndjsonBatches<T>(chunks: AsyncIterable<Buffer>, batchSize: number): AsyncGenerator<T[]> {
  const decoder = new StringDecoder('utf8')
  let records: T[] = []
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
    if (records.length >= batchSize) {
      yield records
      records = []
    }
  }
  take(rest + decoder.end())
  if (records.length) yield records
}
