import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { audioInMemory } from '../server/analysis/audioSource.js'
import { embedBuiltin } from '../server/analysis/similar/embedFile.js'
import { decodeHalves, encodeHalves } from '../server/analysis/similar/float16.js'
import { windowSpan, windowsCovering, type EmbeddingRow } from '../server/analysis/similar/store.js'
import { cosineDistance, meanDirection } from '../server/analysis/similar/vectors.js'
import { discoveryDataDir } from './discoveryData.js'

// Search by example on real recordings (docs/decisions.md §35): the currawong clips of the shared data embedded with
// the built-in kind as EmbedAudio stores it (1 s windows every 0.5 s, float16), then for each labelled call (train/,
// labels.csv) the 10 windows nearest its stretch (the mean of its windows, as tag/{id}/similar/ takes it) outside its
// own file, by exact cosine distance (what the index's answer is re-ranked to). A neighbour is a hit when it holds
// half a labelled call or more (or is half a call). Two libraries: the labelled clips with the clips without a call
// (testFalse/), and the same with the clips of testTrue/ that are not copies of train clips (by md5), whose calls are
// not labelled: there, any window of such a clip counts as a hit (an upper bound; the strict figure is the first).
// Run: npm run bench:similar -- --currawong

const WINDOW = 1,
  HOP = 0.5,
  K = 10

interface FileWindows {
  name: string
  row: EmbeddingRow
  vectors: Float32Array
  calls: Array<{ start: number; end: number }>
  wholeCall: boolean
}

async function embedFolder(
  dir: string,
  files: string[],
  serial: { next: number },
): Promise<Array<{ name: string; md5: string; row: EmbeddingRow; vectors: Float32Array }>> {
  const out = []
  for (const name of files) {
    const bytes = readFileSync(join(dir, name))
    const source = await audioInMemory(bytes)
    const e = await embedBuiltin(source, WINDOW, HOP)
    const id = serial.next++
    const row: EmbeddingRow = {
      id,
      mediaFile: id,
      library: 1,
      kind: 'builtin',
      lengthSeconds: e.lengthSeconds,
      stepSeconds: e.stepSeconds,
      duration: source.info.duration,
      dimensions: e.dimensions,
      windows: e.windows,
    }
    // stored as float16, read back as the server reads it
    out.push({
      name,
      md5: createHash('md5').update(bytes).digest('hex'),
      row,
      vectors: decodeHalves(encodeHalves(e.vectors)),
    })
  }
  return out
}

const wavs = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.toLowerCase().endsWith('.wav'))
    .sort()
const holdsHalf = (w: { start: number; end: number }, c: { start: number; end: number }) => {
  const overlap = Math.min(w.end, c.end) - Math.max(w.start, c.start)
  return overlap >= 0.5 * Math.min(c.end - c.start, w.end - w.start) - 1e-9
}

function precisionAt(files: FileWindows[]): { precision: number; queries: number } {
  let hits = 0,
    queries = 0
  for (const f of files) {
    for (const call of f.calls) {
      const covering = windowsCovering(f.row, call.start, call.end)
      const d = f.row.dimensions
      const query = meanDirection(
        covering.map((i) => f.vectors.subarray(i * d, (i + 1) * d)),
        d,
      )
      const nearest: Array<{ distance: number; hit: boolean }> = []
      for (const g of files) {
        if (g === f) continue
        for (let i = 0; i < g.row.windows; i++) {
          const span = windowSpan(g.row, i)
          nearest.push({
            distance: cosineDistance(query, g.vectors, i * d, d),
            hit: g.wholeCall || g.calls.some((c) => holdsHalf(span, c)),
          })
        }
      }
      nearest.sort((a, b) => a.distance - b.distance)
      hits += nearest.slice(0, K).filter((n) => n.hit).length
      queries++
    }
  }
  return { precision: hits / (K * queries), queries }
}

export async function currawongPrecision(): Promise<void> {
  const found = discoveryDataDir()
  if ('error' in found) {
    process.stdout.write(`currawong precision@10: skipped (${found.error})\n`)
    return
  }
  const dir = found.dir
  const labels = readFileSync(join(dir, 'labels.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','))
  const serial = { next: 1 }
  const train = await embedFolder(join(dir, 'train'), wavs(join(dir, 'train')), serial)
  const without = await embedFolder(join(dir, 'testFalse'), wavs(join(dir, 'testFalse')), serial)
  const withCall = await embedFolder(join(dir, 'testTrue'), wavs(join(dir, 'testTrue')), serial)
  const trainMd5 = new Set(train.map((t) => t.md5))
  const fresh = withCall.filter((c) => !trainMd5.has(c.md5))
  const labelled: FileWindows[] = train.map((t) => ({
    ...t,
    wholeCall: false,
    calls: labels.filter((l) => l[0] === t.name).map((l) => ({ start: Number(l[1]), end: Number(l[2]) })),
  }))
  const silent: FileWindows[] = without.map((t) => ({ ...t, calls: [], wholeCall: false }))
  const strict = precisionAt([...labelled, ...silent])
  const wider = precisionAt([...labelled, ...silent, ...fresh.map((t) => ({ ...t, calls: [], wholeCall: true }))])
  const windows = (xs: Array<{ row: EmbeddingRow }>) => xs.reduce((n, x) => n + x.row.windows, 0)
  process.stdout.write(
    `currawong precision@10 (built-in kind, ${WINDOW} s windows every ${HOP} s, exact cosine on float16):\n` +
      `  ${strict.queries} labelled calls against ${train.length} labelled clips + ${without.length} clips without a call (${windows([...train, ...without])} windows): ${strict.precision.toFixed(3)}\n` +
      `  the same library + ${fresh.length} testTrue clips not in train (any of their windows a hit; ${windows(fresh)} windows more): ${wider.precision.toFixed(3)}\n`,
  )
}
