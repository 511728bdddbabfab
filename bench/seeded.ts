import { ADMIN, NAMES, OWNER, type BenchUser } from './fixture.js'

// The records of the benchmark data set (npm run seed:bench), found through
// the API as the fixture's users, so a benchmark needs no ids of its own.

export const API = '/api/v0'

/** A record as the API answers it; the benchmarks read only ids and names. */
type ApiRecord = { id: number; name?: string; library?: number }
interface Page {
  count: number
  next: string | null
  results: ApiRecord[]
}

export const auth = (u: BenchUser) => ({ authorization: `Token ${u.token}` })

async function getJson<T>(base: string, path: string, as: BenchUser): Promise<T> {
  const res = await fetch(base + path, { headers: auth(as) })
  if (!res.ok) throw new Error(`GET ${path} as ${as.username}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<T>
}

async function named(base: string, path: string, name: string, as: BenchUser): Promise<ApiRecord> {
  for (let url: string | null = base + path; url;) {
    const page: Page = await getJson('', url, as)
    const hit = page.results.find((r) => r.name === name)
    if (hit) return hit
    url = page.next
  }
  throw new Error(`no ${name} in ${path}: was the database seeded with npm run seed:bench?`)
}

/** The tag set the POST benchmarks write into, emptied of earlier runs' tags (by deleting it, which
 * removes its tags in one statement, and creating it again) so that every run inserts into tables of
 * the same size. */
async function emptyWriteSet(base: string, writeSet: ApiRecord): Promise<ApiRecord> {
  if ((await getJson<Page>(base, `${API}/tagSet/${writeSet.id}/tags/?page_size=1`, OWNER)).count === 0) return writeSet
  process.stdout.write(`emptying the tag set "${NAMES.writeTagSet}" of earlier runs' tags\n`)
  const headers = { ...auth(OWNER), 'content-type': 'application/json' }
  const deleted = await fetch(`${base}${API}/tagSet/${writeSet.id}/`, { method: 'DELETE', headers })
  if (deleted.status !== 204)
    throw new Error(`DELETE tagSet/${writeSet.id}/: ${deleted.status} ${await deleted.text()}`)
  const created = await fetch(`${base}${API}/tagSet/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: NAMES.writeTagSet, library: writeSet.library }),
  })
  if (created.status !== 201) throw new Error(`POST tagSet/: ${created.status} ${await created.text()}`)
  return created.json() as Promise<ApiRecord>
}

export interface Seeded {
  library: ApiRecord
  /** the read benchmarks' tag set (100,000 tags) */
  tagSet: ApiRecord
  /** the write benchmarks' tag set, empty */
  writeSet: ApiRecord
  project: ApiRecord
  tagClass: number
  /** the first 100 media files of the library */
  files: number[]
  /** a tag in the middle of the read tag set */
  aTag: number
}

export async function seededRecords(base: string): Promise<Seeded> {
  const library = await named(base, `${API}/library/`, NAMES.library, OWNER)
  const tagSet = await named(base, `${API}/tagSet/`, NAMES.tagSet, OWNER)
  const writeSet = await emptyWriteSet(base, await named(base, `${API}/tagSet/`, NAMES.writeTagSet, OWNER))
  const project = await named(base, `${API}/project/`, NAMES.project, ADMIN)
  const tagClass = (await getJson<Page>(base, `${API}/tagClass/?library=${library.id}&page_size=1`, OWNER)).results[0]
    .id
  const files = (
    await getJson<Page>(base, `${API}/library/${library.id}/mediaFiles/?page_size=100`, OWNER)
  ).results.map((f) => f.id)
  const aTag = (await getJson<Page>(base, `${API}/tagSet/${tagSet.id}/tags/?page_size=1&page=500`, OWNER)).results[0].id
  return { library, tagSet, writeSet, project, tagClass, files, aTag }
}
