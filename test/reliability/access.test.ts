import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BUILTIN_KIND, storeEmbeddings } from '../../server/analysis/similar/store.js'
import { API } from '../../server/resources/resource.js'
import { suiteApp } from '../helpers/app.js'
import { databaseState, makeWorld, ROLES, storedFiles, type Role, type World } from '../helpers/world.js'

// The access rules of docs/decisions.md §6 as a matrix generated from the route table:
// every route x every role, reading and writing the owner's records, plus the
// stored bytes under /media/. A route added later is covered by the generic
// rules (anonymous and inactive callers get 401, outsiders change nothing, a
// list shows only what the caller can open) and by the exact expectations
// once its resource is named in KIND.

type Kind = 'lookup' | 'siteAdmin' | 'catalog' | 'library' | 'owner' | 'group' | 'permission' | 'document'

/** What kind of record each resource of the API is, for reading (docs/decisions.md §6). */
const KIND: Record<string, Kind> = {
  jobTypes: 'lookup',
  jobStatusTypes: 'lookup',
  projectTypes: 'lookup',
  mediaTypes: 'lookup',
  user: 'siteAdmin',
  library: 'library',
  mediaFile: 'library',
  mediaFileMetaData: 'library',
  mediaFileUserMetaDataField: 'library',
  mediaFileUserMetaData: 'library',
  tagSet: 'library',
  tagClass: 'library',
  tag: 'library',
  tagExample: 'library',
  tagRegion: 'library',
  tagReview: 'library',
  project: 'owner',
  jobs: 'owner',
  jobParameters: 'owner',
  jobResultFile: 'owner',
  randomWindow: 'owner',
  sensor: 'owner',
  sensorArray: 'owner',
  userSettings: 'owner',
  loginCode: 'owner',
  appUserGroup: 'group',
  appPermission: 'permission',
  // answered to every caller, with the people that caller shares something with (test/server/resources/usernames.test.ts)
  usernames: 'document',
  // read by every signed-in user, changed by site admins only (an operator's models)
  model: 'catalog',
}

/** Who reads a record of each kind (HTTP status of a GET on the owner's record). */
function readStatus(kind: Kind, role: Role): number {
  if (role === 'anonymous' || role === 'inactive') return 401
  if (role === 'admin' || kind === 'lookup' || kind === 'document' || kind === 'catalog') return 200
  if (kind === 'siteAdmin') return 403
  if (role === 'owner') return 200
  if (kind === 'library') return role === 'writer' || role === 'member' ? 200 : 404
  if (kind === 'group') return role === 'member' ? 200 : 404 // a member
  if (kind === 'permission') return role === 'writer' ? 200 : 404 // its bearer
  return 404
}

/** Sub-list segment -> the resource its items are. */
const ITEMS: Record<string, string> = {
  mediaFiles: 'mediaFile',
  userMetaDataFields: 'mediaFileUserMetaDataField',
  userMetaData: 'mediaFileUserMetaData',
  tags: 'tag',
  projects: 'project',
}

/** Lists that show only the caller's own records, whoever asks (site admins included). */
const OWN_LIST = new Set(['userSettings'])

/** Resources anyone may create records of, owned by themselves (no reference to another's records needed). */
const OPEN_CREATE = new Set([
  'library',
  'sensorArray',
  'sensor',
  'userSettings',
  'appUserGroup',
  'project',
  'tagSet',
  'loginCode',
])

const t = suiteApp(test)
let w: World

test.before(async () => {
  w = await makeWorld(t)
  // stored window embeddings of the owner's media file, so that searching by its tag (tag/{id}/similar/) has
  // something to answer with: 20 windows of 1 s every 0.5 s, each a different vector
  const windows = 20,
    d = 8
  await storeEmbeddings(t.db, {
    mediaFile: w.ids.mediaFile,
    library: w.ids.library,
    kind: BUILTIN_KIND,
    windowSeconds: 1,
    hopSeconds: 0.5,
    lengthSeconds: 1,
    stepSeconds: 0.5,
    duration: 10.5,
    dimensions: d,
    vectors: Float32Array.from({ length: windows * d }, (_, i) => Math.sin(i + 1)),
  })
})

interface ApiRoute {
  url: string
  resource: string
  segment?: string
  action?: string
  detail: boolean
  methods: string[]
  auth: boolean
}

function apiRoutes(): ApiRoute[] {
  const out: ApiRoute[] = []
  for (const ep of t.app.routeTable.endpoints) {
    const m = new RegExp(`^${API}/([A-Za-z]+)/(?:(:id)/)?(?:([A-Za-z]+)/)?(?:([A-Za-z]+)/)?$`).exec(ep.path)
    if (!m) continue
    // a required query parameter names a record of the same kind (tagSet/{id}/evaluate/?against=): the route's own
    const required = Object.entries(ep.doc?.filters ?? {})
      .filter(([, f]) => f.required)
      .map(([name]) => `${name}=:id`)
    out.push({
      url: required.length ? `${ep.path}?${required.join('&')}` : ep.path,
      resource: m[1],
      detail: !!m[2] && !m[3],
      segment: m[3],
      action: m[4],
      methods: Object.keys(ep.methods),
      auth: ep.auth !== false,
    })
  }
  return out
}

function idFor(resource: string): number {
  if (KIND[resource] === 'lookup') return 1
  return w.ids[resource] ?? 1
}

const call = (method: string, url: string, role: Role, body?: unknown) =>
  t.call(method, url, { as: { auth: w.auth[role] }, body })

test('every route needs authentication: anonymous and inactive callers get 401 and change nothing', async () => {
  const before = await databaseState(t)
  let checked = 0
  for (const ep of t.app.routeTable.endpoints) {
    if (ep.auth === false) continue
    const url = ep.path.replace(':id', String(w.ids.library))
    for (const method of Object.keys(ep.methods)) {
      for (const role of ['anonymous', 'inactive'] as Role[]) {
        const res = await call(method, url, role, method === 'GET' ? undefined : {})
        assert.is(res.statusCode, 401, `${role} ${method} ${url}: ${res.body}`)
        if (role === 'anonymous') assert.is(res.headers['www-authenticate'], 'Basic realm="api"')
        checked++
      }
    }
  }
  assert.ok(checked > 100)
  assert.is(await databaseState(t), before)
})

test('reading: every resource route x every role answers as the access rules say', async () => {
  const routes = apiRoutes()
  const unclassified = [...new Set(routes.map((r) => r.resource))].filter((r) => !KIND[r])
  assert.equal(unclassified, [], 'resources without an access kind: add them to KIND')
  for (const r of routes.filter((x) => x.methods.includes('GET'))) {
    const kind = KIND[r.resource]
    const url = r.url.replaceAll(':id', String(idFor(r.resource)))
    for (const role of ROLES) {
      const res = await call('GET', url, role)
      // a record, or a sub-list, as its (parent) record; a top-level list to every authenticated caller
      let want =
        r.detail || r.segment ? readStatus(kind, role) : readStatus(kind === 'siteAdmin' ? kind : 'lookup', role)
      // the project list is for site admins (golden 23/24)
      if (r.resource === 'project' && !r.detail && !r.segment && want === 200 && role !== 'admin') want = 403
      assert.is(res.statusCode, want, `${role} GET ${url}: ${res.body.slice(0, 200)}`)
      if (want === 200 && r.detail) assert.is(res.data.id, idFor(r.resource), url)
    }
  }
})

/** Every record of a list, across all its pages. */
async function everything(url: string, role: Role): Promise<{ count: number; ids: number[] }> {
  const ids: number[] = []
  let next: string | null = `${url}${url.includes('?') ? '&' : '?'}page_size=7`
  let count = -1
  while (next) {
    const res = await call('GET', next.replace(/^https?:\/\/[^/]+/, ''), role)
    assert.is(res.statusCode, 200, `${role} ${next}: ${res.body.slice(0, 200)}`)
    if (count < 0) count = res.data.count
    assert.is(res.data.count, count, 'count changed between pages')
    ids.push(...res.data.results.map((x: any) => x.id))
    next = res.data.next
  }
  return { count, ids }
}

test('no list counts or shows a record its caller cannot open, and every readable record of the owner is listed', async () => {
  const routes = apiRoutes()
  let lists = 0
  for (const r of routes.filter((x) => !x.detail && !x.action && x.methods.includes('GET'))) {
    const item = r.segment ? ITEMS[r.segment] : r.resource
    const detail = routes.find((x) => x.resource === item && x.detail)
    if (!detail) continue
    for (const role of ROLES.filter((x) => x !== 'anonymous' && x !== 'inactive')) {
      const url = r.url.replaceAll(':id', String(idFor(r.resource)))
      const probe = await call('GET', url, role)
      if (probe.statusCode !== 200) continue // the parent is not readable, or the list is for site admins
      const { count, ids } = await everything(url, role)
      lists++
      assert.is(ids.length, count, `${role} ${url}: count ${count} but ${ids.length} records`)
      assert.is(new Set(ids).size, ids.length, `${role} ${url}: a record listed twice`)
      for (const id of ids) {
        const one = await call('GET', detail.url.replace(':id', String(id)), role)
        assert.is(one.statusCode, 200, `${role} lists ${item} ${id} at ${url} but cannot open it`)
      }
      // the owner's record of a top-level list is there exactly when the caller can open it
      if (!r.segment && w.ids[item] && KIND[item] !== 'lookup' && !OWN_LIST.has(item)) {
        const open = (await call('GET', detail.url.replace(':id', String(w.ids[item])), role)).statusCode === 200
        assert.is(ids.includes(w.ids[item]), open, `${role} ${url}: the owner's ${item} listed=${!open}`)
      }
    }
  }
  assert.ok(lists > 60, `only ${lists} lists checked`)
})

test('writing: outsiders, revoked grantees and inactive users change nothing, on every write route', async () => {
  const routes = apiRoutes()
  const before = await databaseState(t)
  const files = storedFiles(t)
  let attempts = 0
  for (const r of routes) {
    const writes = r.methods.filter((m) => m !== 'GET')
    if (!writes.length) continue
    const kind = KIND[r.resource]
    const url = r.url.replaceAll(':id', String(idFor(r.resource)))
    // a body a writer would send: the owner's own record (references included)
    const own = r.detail
      ? (await call('GET', url, 'owner')).data
      : w.ids[r.resource]
        ? (await call('GET', `${API}/${r.resource}/${w.ids[r.resource]}/`, 'owner')).data
        : {}
    const outsiders: Role[] = ['stranger', 'revoked', 'inactive', 'anonymous']
    if (kind === 'owner' || kind === 'siteAdmin') outsiders.push('writer', 'member')
    if (kind === 'catalog') outsiders.push('writer', 'member', 'owner')
    if (kind === 'group') outsiders.push('writer')
    for (const method of writes) {
      for (const role of outsiders) {
        if (
          method === 'POST' &&
          !r.detail &&
          !r.segment &&
          OPEN_CREATE.has(r.resource) &&
          role !== 'anonymous' &&
          role !== 'inactive'
        )
          continue
        const res = await call(method, url, role, method === 'DELETE' ? undefined : own)
        attempts++
        const allowed =
          role === 'anonymous' || role === 'inactive'
            ? [401]
            : kind === 'siteAdmin' || kind === 'catalog'
              ? [403]
              : [400, 403, 404]
        assert.ok(
          allowed.includes(res.statusCode),
          `${role} ${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`,
        )
        if (r.detail && readStatus(kind, role) === 404)
          assert.is(res.statusCode, 404, `${role} ${method} ${url} revealed the record`)
      }
    }
  }
  assert.ok(attempts > 150, `only ${attempts} attempts`)
  assert.is(await databaseState(t), before)
  assert.equal(storedFiles(t), files)
})

test("stored bytes under /media/: the file of a media file to its library's readers, a job result to the job's owner", async () => {
  for (const role of ROLES) {
    for (const [what, name] of Object.entries(w.files)) {
      const kind: Kind = what === 'mediaFile' ? 'library' : 'owner'
      const want = readStatus(kind, role)
      for (const method of ['GET', 'HEAD']) {
        const res = await call(method, `/media/${name}`, role)
        assert.is(res.statusCode, want, `${role} ${method} /media/${name}: ${res.body.slice(0, 100)}`)
        if (want === 200 && method === 'GET') assert.ok(res.rawPayload.length > 0)
      }
    }
    // a name nobody stored is answered like one the caller may not read
    const missing = await call('GET', '/media/world/nothing-here.wav', role)
    assert.is(missing.statusCode, role === 'anonymous' || role === 'inactive' ? 401 : 404)
  }
})

test.run()
