import { readFileSync } from 'node:fs'
import { InvertedFile } from '../server/analysis/similar/invertedFile.js'

// node dist/bench/similarServe.js INDEX QUERIES DIMENSIONS CANDIDATES (run by similarBench.ts)
//
// A process that only opens a library's index and searches it, as the server does: its anonymous resident memory
// before the index is opened, and after the queries (float32, one after another, in the file QUERIES) are answered,
// printed as JSON. Measured in a process of its own, so that nothing a benchmark built is counted.

/** This process's anonymous resident memory (heap, buffers; not file pages), bytes. */
function anonymousResident(): number {
  const line = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return line ? Number(line[1]) * 1024 : NaN
}

async function main(): Promise<void> {
  const [indexPath, queriesPath, dimensions, candidates] = process.argv.slice(2)
  const d = Number(dimensions)
  const bytes = readFileSync(queriesPath)
  const queries = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
  const before = anonymousResident()
  const index = await InvertedFile.open(indexPath)
  const opened = anonymousResident()
  for (let at = 0; at < queries.length; at += d) await index.search(queries.slice(at, at + d), Number(candidates))
  const searched = anonymousResident()
  await index.close()
  process.stdout.write(JSON.stringify({ before, opened, searched }) + '\n')
}

await main()
