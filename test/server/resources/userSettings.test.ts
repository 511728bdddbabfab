import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary } from '../../helpers/records.js'
import { makeCallers } from '../../helpers/world.js'

const t = suiteApp(test)
let alice: TestUser
let bob: TestUser
let admin: TestUser
/** asks for its settings first in the test of concurrent first reads */
let carol: TestUser

test.before(async () => {
  ;({ alice, bob, carol, admin } = await makeCallers(t))
})

const SPECTRA = {
  WindowSizeInSeconds: 10,
  SpectraMinimumBandFrequency: 0,
  SpectraMaximumBandFrequency: 22050,
  SpectraDampingFactor: 0.1,
  SpectraNumFrequencyBands: 256,
  SpectraNumFramesPerSecond: 100,
}
const view = (prefix: string) =>
  Object.fromEntries(
    Object.entries(SPECTRA).map(([k, v]) => [prefix ? prefix + k : k[0].toLowerCase() + k.slice(1), v]),
  )
const DEFAULTS = {
  ...view(''),
  showSpectra: true,
  showWaveform: true,
  showPitchTrace: false,
  loadAudio: true,
  maxNumAudioFilesToList: 100,
  transcriptFormat: '',
  ...view('fileView'),
  ...view('catalogView'),
  ...view('tagView'),
}
const INTEGER_FIELDS = [
  'id',
  'user',
  'maxNumAudioFilesToList',
  ...['', 'fileView', 'catalogView', 'tagView'].map((p) =>
    p ? `${p}SpectraNumFrequencyBands` : 'spectraNumFrequencyBands',
  ),
]

test("the first list creates the caller's `default` settings with every field of spec 2.20", async () => {
  const res = await t.call('GET', api('userSettings/'), { as: alice })
  assert.is(res.statusCode, 200)
  assert.is(res.headers.allow, 'GET, POST, HEAD, OPTIONS')
  assert.is(res.data.count, 1)
  const rec = res.data.results[0]
  assert.equal(rec, { id: rec.id, user: alice.id, name: 'default', ...DEFAULTS })
  assert.is(Object.keys(rec).length, 3 + 12 + 18)
  for (const k of INTEGER_FIELDS) assert.ok(Number.isInteger(rec[k]), k)
  // listing again does not make another
  const again = await t.call('GET', api('userSettings/'), { as: alice })
  assert.equal(
    again.data.results.map((r: any) => r.id),
    [rec.id],
  )
})

test('simultaneous first lists make exactly one default record', async () => {
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => t.call('GET', api('userSettings/'), { as: carol })),
  )
  assert.equal(
    answers.map((a) => a.statusCode),
    Array(10).fill(200),
  )
  for (const a of answers) assert.is(a.data.count, 1)
  const rows = await t.db.selectFrom('user_settings').select('id').where('user_id', '=', carol.id).execute()
  assert.is(rows.length, 1)
})

test('round trip: create, read, filter, PUT, PATCH, delete', async () => {
  const body = {
    name: 'night',
    windowSizeInSeconds: 4.5,
    spectraMaximumBandFrequency: 8000,
    showPitchTrace: 'true',
    tagViewSpectraNumFrequencyBands: '512',
    transcriptFormat: 'srt',
    user: bob.id,
    id: 99,
  }
  const created = await t.call('POST', api('userSettings/'), { as: alice, body })
  assert.is(created.statusCode, 201)
  const id = created.data.id
  assert.equal(created.data, {
    ...{ id, user: alice.id, name: 'night' },
    ...DEFAULTS,
    windowSizeInSeconds: 4.5,
    spectraMaximumBandFrequency: 8000,
    showPitchTrace: true,
    tagViewSpectraNumFrequencyBands: 512,
    transcriptFormat: 'srt',
  })
  assert.equal((await t.call('GET', api(`userSettings/${id}/`), { as: alice })).data, created.data)

  const list = await t.call('GET', api('userSettings/?ordering=-name'), { as: alice })
  assert.equal(
    list.data.results.map((r: any) => r.name),
    ['night', 'default'],
  )
  const filtered = await t.call('GET', api('userSettings/?showPitchTrace=true'), { as: alice })
  assert.equal(
    filtered.data.results.map((r: any) => r.id),
    [id],
  )

  const putBody = { ...DEFAULTS, name: 'night-2', catalogViewSpectraDampingFactor: 0.5, loadAudio: false }
  const put = await t.call('PUT', api(`userSettings/${id}/`), { as: alice, body: putBody })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { id, user: alice.id, ...putBody })
  const patch = await t.call('PATCH', api(`userSettings/${id}/`), {
    as: alice,
    body: { fileViewWindowSizeInSeconds: 2 },
  })
  assert.equal(patch.data, { ...put.data, fileViewWindowSizeInSeconds: 2 })

  const del = await t.call('DELETE', api(`userSettings/${id}/`), { as: alice })
  assert.is(del.statusCode, 204)
  assert.is((await t.call('GET', api(`userSettings/${id}/`), { as: alice })).statusCode, 404)
})

test('a name is unique per user; two users may both have `default`', async () => {
  await t.call('GET', api('userSettings/'), { as: bob })
  const dup = await t.call('POST', api('userSettings/'), { as: alice, body: { name: 'default' } })
  assert.is(dup.statusCode, 400)
  assert.equal(dup.data, { name: ['user settings with this name already exists.'] })
  const other = await t.call('POST', api('userSettings/'), { as: alice, body: { name: 'other' } })
  assert.is(other.statusCode, 201)
  const rename = await t.call('PATCH', api(`userSettings/${other.data.id}/`), { as: alice, body: { name: 'default' } })
  assert.is(rename.statusCode, 400)
  const same = await t.call('PATCH', api(`userSettings/${other.data.id}/`), {
    as: alice,
    body: { name: 'other', showSpectra: false },
  })
  assert.is(same.statusCode, 200)
  // simultaneous creates of one name: one record, the rest 400, never a 500
  const racing = await Promise.all(
    Array.from({ length: 6 }, () => t.call('POST', api('userSettings/'), { as: alice, body: { name: 'race' } })),
  )
  assert.equal(racing.map((r) => r.statusCode).sort(), [201, 400, 400, 400, 400, 400])
})

test('bad values are 400 naming the field', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', windowSizeInSeconds: 'abc' }, 'windowSizeInSeconds'],
    [{ name: 'x', spectraNumFrequencyBands: 1.5 }, 'spectraNumFrequencyBands'],
    [{ name: 'x', showSpectra: 'maybe' }, 'showSpectra'],
    [{ name: 'x', tagViewSpectraDampingFactor: '1e999' }, 'tagViewSpectraDampingFactor'],
    [{ name: 'x', spectraNumFrequencyBands: 0 }, 'spectraNumFrequencyBands'],
    [{ name: 'x', spectraMinimumBandFrequency: 9000, spectraMaximumBandFrequency: 100 }, 'spectraMinimumBandFrequency'],
    [{ name: 'x', maxNumAudioFilesToList: true }, 'maxNumAudioFilesToList'],
  ]
  for (const [body, field] of cases) {
    const res = await t.call('POST', api('userSettings/'), { as: alice, body })
    assert.is(res.statusCode, 400, JSON.stringify(body))
    assert.ok(Array.isArray(res.data[field]), `${JSON.stringify(body)} -> ${JSON.stringify(res.data)}`)
  }
})

test("access matrix: only the owner and site admins; the list is always the caller's own", async () => {
  const owner = await t.user('settings-owner')
  const dave = await t.user('dave')
  const erin = await t.user('erin')
  const lib = await makeLibrary(t.db, owner)
  await grant(t.db, owner, { user: dave.id }, { library: lib }, ['admin'])
  const group = await makeGroup(t.db, owner, [erin])
  await grant(t.db, owner, { group }, { library: lib }, ['admin'])
  const revoked = await t.user('revoked')
  const gone = await grant(t.db, owner, { user: revoked.id }, { library: lib }, ['admin'])
  await t.db.deleteFrom('app_permissions').where('id', '=', gone).execute()
  const id = (await t.call('GET', api('userSettings/'), { as: owner })).data.results[0].id

  for (const [who, as, status] of [
    ['owner', owner, 200],
    ['unrelated', bob, 404],
    ['grantee', dave, 404],
    ['group member', erin, 404],
    ['revoked grantee', revoked, 404],
    ['site admin', admin, 200],
    ['anonymous', undefined, 401],
  ] as const) {
    assert.is((await t.call('GET', api(`userSettings/${id}/`), { as })).statusCode, status, `${who} GET`)
    assert.is(
      (await t.call('PATCH', api(`userSettings/${id}/`), { as, body: { windowSizeInSeconds: 3 } })).statusCode,
      status,
      `${who} PATCH`,
    )
    assert.is(
      (await t.call('PUT', api(`userSettings/${id}/`), { as, body: { name: 'default' } })).statusCode,
      status,
      `${who} PUT`,
    )
    const list = await t.call('GET', api('userSettings/'), { as })
    assert.is(list.statusCode, as ? 200 : 401, `${who} list`)
    if (as) {
      assert.ok(
        list.data.results.every((r: any) => r.user === as.id),
        `${who} sees only their own`,
      )
      assert.is(
        list.data.results.some((r: any) => r.id === id),
        as === owner,
        `${who} list`,
      )
    }
  }
  for (const as of [bob, dave, erin, revoked])
    assert.is((await t.call('DELETE', api(`userSettings/${id}/`), { as })).statusCode, 404)
  assert.is((await t.call('DELETE', api(`userSettings/${id}/`), { as: admin })).statusCode, 204)
})

test.run()
