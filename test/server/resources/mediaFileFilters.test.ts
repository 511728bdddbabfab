import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeLibrary, makeMediaFile } from '../../helpers/records.js'
import { audioMothWav } from '../../helpers/recorders.js'
import { importMedia } from '../../helpers/upload.js'
import { makeWav } from '../../helpers/wav.js'

// The media file list filters beyond equality (README, "Media files"): alias, alias__startswith,
// realStartTime__gte/__lte, in django-filter's spelling and in the OpenAPI document; and what the
// import endpoint does with aliases, start-time options and damaged files.

const t = suiteApp(test)
let alice: TestUser, bob: TestUser
let library: number

test.before(async () => {
  alice = await t.user('alice')
  bob = await t.user('bob')
  library = await makeLibrary(t.db, alice)
  const file = (alias: string, realStartTime: string | null) =>
    makeMediaFile(t.db, alice, library, { alias, realStartTime })
  await file('siteA/2026-05-01/a.WAV', '2026-05-01 05:00:00')
  await file('siteA/2026-05-02/b.WAV', '2026-05-02 05:00:00')
  await file('siteAB/c.WAV', '2026-05-03 05:00:00')
  await file('100%_done/d.WAV', null)
  await file('1000_done/e.WAV', null)
  await makeMediaFile(t.db, bob, await makeLibrary(t.db, bob), {
    alias: 'siteA/2026-05-01/a.WAV',
    realStartTime: '2026-05-01 05:00:00',
  })
})

const aliases = async (query: string, url = '/api/v0/mediaFile/') => {
  const res = await t.call('GET', `${url}?${query}`, { as: alice })
  assert.is(res.statusCode, 200, res.body)
  return res.data.results.map((f: any) => f.alias)
}

test('alias and alias__startswith: exact, and a folder taken literally (% and _ are no wildcards)', async () => {
  assert.equal(await aliases('alias=siteA/2026-05-01/a.WAV'), ['siteA/2026-05-01/a.WAV'])
  assert.equal(await aliases('alias=siteA'), [])
  assert.equal(await aliases('alias__startswith=siteA/'), ['siteA/2026-05-01/a.WAV', 'siteA/2026-05-02/b.WAV'])
  assert.equal(await aliases('alias__startswith=siteA'), [
    'siteA/2026-05-01/a.WAV',
    'siteA/2026-05-02/b.WAV',
    'siteAB/c.WAV',
  ])
  assert.equal(await aliases('alias__startswith=100%25'), ['100%_done/d.WAV'])
  assert.equal(await aliases('alias__startswith=10_0'), [])
  assert.equal(await aliases('alias__startswith=sitea/'), [])
  assert.equal(await aliases('alias__startswith=siteA/', `/api/v0/library/${library}/mediaFiles/`), [
    'siteA/2026-05-01/a.WAV',
    'siteA/2026-05-02/b.WAV',
  ])
})

test('realStartTime__gte/__lte keep recordings that started in the range; ordering by realStartTime; bad times are 400', async () => {
  assert.equal(await aliases('realStartTime__gte=2026-05-02T00:00:00'), ['siteA/2026-05-02/b.WAV', 'siteAB/c.WAV'])
  assert.equal(await aliases('realStartTime__lte=2026-05-02T05:00:00'), [
    'siteA/2026-05-01/a.WAV',
    'siteA/2026-05-02/b.WAV',
  ])
  assert.equal(await aliases('realStartTime__gte=2026-05-01T05:00:01&realStartTime__lte=2026-05-03T04:59:59'), [
    'siteA/2026-05-02/b.WAV',
  ])
  assert.equal(await aliases('ordering=-realStartTime&realStartTime__gte=2026-01-01T00:00:00'), [
    'siteAB/c.WAV',
    'siteA/2026-05-02/b.WAV',
    'siteA/2026-05-01/a.WAV',
  ])
  const bad = await t.call(
    'GET',
    '/api/v0/mediaFile/?realStartTime__gte=yesterday&realStartTime__lte=2026-13-01T00:00:00',
    { as: alice },
  )
  assert.is(bad.statusCode, 400)
  assert.equal(Object.keys(bad.data).sort(), ['realStartTime__gte', 'realStartTime__lte'])
  const md5 = await t.call('GET', '/api/v0/mediaFile/?md5=xyz', { as: alice })
  assert.equal([md5.statusCode, Object.keys(md5.data)], [400, ['md5']])
})

test('the OpenAPI document lists the filters of both media file lists', async () => {
  const doc = (await t.call('GET', '/api/openapi.json', { as: alice })).data
  for (const path of ['/api/v0/mediaFile/', '/api/v0/library/{id}/mediaFiles/']) {
    const names = doc.paths[path].get.parameters.map((p: any) => p.name)
    for (const n of ['alias', 'alias__startswith', 'realStartTime__gte', 'realStartTime__lte', 'md5'])
      assert.ok(names.includes(n), `${path} ${n}`)
    assert.is(new Set(names).size, names.length, `${path}: a parameter twice`)
    const gte = doc.paths[path].get.parameters.find((p: any) => p.name === 'realStartTime__gte')
    assert.is(gte.in, 'query')
  }
})

test('import: a given alias is unique in the library (other bytes: 400), the same bytes under another alias stay one record', async () => {
  const lib = await makeLibrary(t.db, alice)
  const first = await importMedia(t, alice, lib, makeWav({ frequency: 700 }), { fields: { alias: 'siteQ/x.wav' } })
  assert.is(first.statusCode, 201)
  const other = await importMedia(t, alice, lib, makeWav({ frequency: 701 }), { fields: { alias: 'siteQ/x.wav' } })
  assert.equal(
    [other.statusCode, other.data],
    [
      400,
      {
        alias: [
          `A media file with this alias already exists in this library (id ${first.data.id}) and holds other bytes.`,
        ],
      },
    ],
  )
  const same = await importMedia(t, alice, lib, makeWav({ frequency: 700 }), { fields: { alias: 'siteR/copy.wav' } })
  assert.equal([same.statusCode, same.data.id], [200, first.data.id])
  // another library may hold the alias
  assert.is(
    (await importMedia(t, alice, library, makeWav({ frequency: 701 }), { fields: { alias: 'siteQ/x.wav' } }))
      .statusCode,
    201,
  )
})

test('import: start times from the metadata, the name, or none; timeOffset shifts them; a bad offset is 400', async () => {
  const lib = await makeLibrary(t.db, alice)
  const moth = (f: number) =>
    audioMothWav(new Date(Date.UTC(2026, 6, 1, 23, 30, 0)), { frequency: f, sampleRate: 8000, seconds: 0.2 })
  const up = async (f: number, fields: Record<string, string>) => {
    const res = await importMedia(t, alice, lib, moth(f), {
      fields: { alias: `m/20260101_000000-${f}.WAV`, ...fields },
    })
    assert.is(res.statusCode, 201, res.body)
    return res.data.realStartTime
  }
  assert.is(await up(800, {}), '2026-07-01T23:30:00')
  assert.is(await up(801, { startTimeFrom: 'name' }), '2026-01-01T00:00:00')
  assert.is(await up(802, { startTimeFrom: 'none' }), null)
  assert.is(await up(803, { timeOffset: '+02:00' }), '2026-07-02T01:30:00')
  assert.is(await up(804, { timeOffset: '-0530' }), '2026-07-01T18:00:00')
  assert.is(await up(805, { realStartTime: '2026-02-02T02:02:02', timeOffset: '+02:00' }), '2026-02-02T02:02:02')
  const bad = await importMedia(t, alice, lib, moth(806), {
    fields: { timeOffset: 'two hours', startTimeFrom: 'exif' },
  })
  assert.is(bad.statusCode, 400)
  assert.equal(Object.keys(bad.data).sort(), ['startTimeFrom', 'timeOffset'])
})

test('import: a truncated WAV gets a warning row, or is refused with strict (nothing stored)', async () => {
  const lib = await makeLibrary(t.db, alice)
  const wav = makeWav({ frequency: 900, seconds: 1, sampleRate: 8000 })
  const cut = wav.subarray(0, 6000)
  const strict = await importMedia(t, alice, lib, cut, { fields: { strict: 'true' } })
  assert.equal(
    [strict.statusCode, strict.data],
    [
      400,
      {
        file: [
          'The file is damaged (truncated: the file ends before its audio data does); it was not imported (strict).',
        ],
      },
    ],
  )
  const kept = await importMedia(t, alice, lib, cut)
  assert.is(kept.statusCode, 201)
  const meta = kept.data.mediafilemetadata_set.map((m: any) => [m.name, m.value])
  assert.ok(
    meta.some(([n, v]: string[]) => n === 'warning' && v === 'truncated: the file ends before its audio data does'),
    JSON.stringify(meta),
  )
  const whole = await importMedia(t, alice, lib, wav, { fields: { strict: 'true' } })
  assert.is(whole.statusCode, 201)
  assert.not.ok(whole.data.mediafilemetadata_set.some((m: any) => m.name === 'warning'))
})

test.run()
