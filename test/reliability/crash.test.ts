import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { killHard, serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'
import { multipart } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'
import { homeEnv, runMas } from '../cli/cli.js'

// kill -9 of a real server process in the middle of work, then a restart on
// the same data: what was answered is there whole, what was not left no trace,
// and the CLI finishes the import exactly once.

const FILES = 50
const TAGS = 10_000

let home: ServerHome
let server: ServerProcess
let auth: Record<string, string>
let library: number
let folder: string
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex')

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; data: any }> {
  const res = await fetch(`${server.url}/api/v0/${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, data: text ? JSON.parse(text) : undefined }
}

async function all(path: string): Promise<any[]> {
  const out: any[] = []
  let page = 1
  for (;;) {
    const res = await api('GET', `${path}${path.includes('?') ? '&' : '?'}page_size=1000&page=${page}`)
    assert.is(res.status, 200, JSON.stringify(res.data))
    out.push(...res.data.results)
    if (!res.data.next) return out
    page++
  }
}

async function login(): Promise<void> {
  const res = await fetch(`${server.url}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: 'root-pass' }),
  })
  auth = { authorization: `Token ${(await res.json()).token}` }
}

/** Stored files (not uploads still arriving under .incoming/). */
function storedNames(): string[] {
  const root = join(home.dataDir, 'media')
  let entries: string[] = []
  try {
    entries = readdirSync(root, { recursive: true }) as string[]
  } catch {
    return []
  }
  return entries
    .map((e) => join(root, e))
    .filter((p) => statSync(p).isFile())
    .map((p) => relative(root, p))
    .filter((n) => !n.startsWith('.incoming'))
    .sort()
}

/** Every MediaFile has its bytes (size and md5) and its metadata; every stored file has its MediaFile. */
async function assertConsistent(): Promise<any[]> {
  const files = await all(`mediaFile/?library=${library}`)
  const stored = files.map((f) => readFileSync(join(home.dataDir, 'media', f.file)))
  // the row's md5 and size are those of the stored bytes: the library answers for them with that very row
  const held = await api(
    'POST',
    `library/${library}/mediaFiles/check/`,
    stored.map((b) => ({ md5: md5(b), size: b.length })),
  )
  assert.is(held.status, 200, JSON.stringify(held.data))
  files.forEach((f, i) => {
    assert.is(held.data[i], f.id, `${f.file}: its row does not hold its stored bytes`)
    assert.is(
      Number(f.mediafilemetadata_set.find((m: any) => m.name === 'fileSize')?.value),
      stored[i].length,
      `${f.file} size`,
    )
    assert.ok(
      f.mediafilemetadata_set.some((m: any) => m.name === 'durationInSeconds'),
      `${f.file} has no duration`,
    )
  })
  assert.equal(storedNames(), files.map((f) => f.file).sort(), 'stored files and MediaFile rows differ')
  return files
}

test.before(async () => {
  home = await serverHome()
  server = await home.start()
  await login()
  library = (await api('POST', 'library/', { name: 'field recordings' })).data.id
  folder = mkdtempSync(join(tmpdir(), 'mas-crash-'))
  for (let i = 0; i < FILES; i++)
    writeFileSync(
      join(folder, `rec-${String(i).padStart(2, '0')}.wav`),
      makeWav({ seconds: 1.5, frequency: 200 + i * 7 }),
    )
})
test.after(async () => {
  if (server.child.exitCode === null) await killHard(server)
  await home.cleanup()
  rmSync(folder, { recursive: true, force: true })
  rmSync(home.dataDir, { recursive: true, force: true })
})

test('kill -9 during 50 concurrent imports: after a restart every MediaFile is whole and every stored file has its row', async () => {
  let answered = 0
  const uploads = readdirSync(folder).map(async (name) => {
    const { payload, headers } = multipart({
      file: { data: readFileSync(join(folder, name)), filename: name, contentType: 'audio/wav' },
    })
    try {
      const res = await fetch(`${server.url}/api/v0/library/${library}/mediaFiles/import/`, {
        method: 'POST',
        headers: { ...headers, ...auth },
        body: new Uint8Array(payload),
      })
      await res.text()
      answered++
      return res.status
    } catch {
      return 0 // cut off by the kill
    }
  })
  while (answered < 5) await delay(5)
  await killHard(server)
  const statuses = await Promise.all(uploads)
  assert.ok(statuses.filter((s) => s === 0).length > 0, 'every import finished before the kill')
  assert.ok(
    statuses.every((s) => s === 0 || s === 201),
    JSON.stringify(statuses),
  )

  server = await home.start()
  await login()
  const files = await assertConsistent()
  assert.ok(files.length >= statuses.filter((s) => s === 201).length)
  assert.ok(files.length < FILES)
})

test('kill -9 during a bulk tag import: after a restart all of the bulk is there or none of it', async () => {
  const files = await all(`mediaFile/?library=${library}`)
  const tagSet = (await api('POST', 'tagSet/', { name: 'crash', library })).data.id
  const tagClass = (await api('POST', 'tagClass/', { className: 'bird', displayName: 'bird', library })).data.id
  const bulk = Array.from({ length: TAGS }, (_, i) => ({
    tagSet,
    tagClass,
    mediaFile: files[i % files.length].id,
    startTime: i % 100,
    endTime: (i % 100) + 0.5,
    minFrequency: 100,
    maxFrequency: 900,
  }))
  const sent = fetch(`${server.url}/api/v0/tag/`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(bulk),
  }).then(
    (r) => r.status,
    () => 0,
  )
  // the body is a few MB: give the server a moment to be inside the work, then kill it
  await delay(300)
  await killHard(server)
  const status = await sent
  server = await home.start()
  await login()
  const count = (await api('GET', `tag/?tagSet=${tagSet}&page_size=1`)).data.count
  assert.ok(count === 0 || count === TAGS, `a partial bulk: ${count} of ${TAGS} tags`)
  if (status === 201) assert.is(count, TAGS)
  await assertConsistent()
})

test('re-running the same CLI import after the crash completes with every file exactly once', async () => {
  const cliHome = mkdtempSync(join(tmpdir(), 'mas-crash-cli-'))
  // the CLI keeps its own retry delay: the server it imports through was just restarted
  const run = await runMas(['media', 'import', folder, '--library', String(library), '--concurrency', '8', '--json'], {
    env: {
      ...homeEnv(cliHome),
      MAS_RETRY_DELAY_MS: undefined,
      MAS_SERVER: server.url,
      MAS_TOKEN: auth.authorization.slice(6),
    },
  })
  rmSync(cliHome, { recursive: true, force: true })
  assert.is(run.code, 0, run.stdout + run.stderr)
  const files = await assertConsistent()
  assert.is(files.length, FILES)
  const local = readdirSync(folder).map((n) => readFileSync(join(folder, n)))
  const held = await api(
    'POST',
    `library/${library}/mediaFiles/check/`,
    local.map((b) => ({ md5: md5(b), size: b.length })),
  )
  assert.ok(
    held.data.every((id: number | null) => id !== null),
    'a file of the folder is missing',
  )
  assert.is(new Set(held.data).size, FILES)
})

test.run()
