import { createHash } from 'node:crypto'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { energyModel, meanEnergyModel } from '../../helpers/onnx.js'
import { postMultipart, storedFiles } from '../../helpers/upload.js'

// model/: operators' ONNX models. A site admin uploads the file with its manifest; the model is loaded and one
// window run before it is kept, so a file that does not load, or does not match its manifest, is refused with
// the reason and nothing is stored. Every user reads the list; only site admins change it.

const API = '/api/v0'
const t = suiteApp(test)
let admin: TestUser
let user: TestUser

test.before(async () => {
  admin = await t.user('operator', { admin: true })
  user = await t.user('researcher')
})

const SAMPLES = 800
const manifest = (more: Record<string, unknown> = {}) =>
  JSON.stringify({
    sampleRate: 16_000,
    windowSeconds: SAMPLES / 16_000,
    input: { name: 'audio', layout: 'batch,samples' },
    outputs: { scores: 'scores', embedding: 'embedding' },
    labels: ['low half', 'high half'],
    version: '1.0',
    ...more,
  })
const upload = (as: TestUser, parts: Record<string, string | { data: Buffer; filename: string }>) =>
  postMultipart(t, `${API}/model/`, as, parts)
const file = (bytes: Uint8Array) => ({ data: Buffer.from(bytes), filename: 'energy.onnx' })

test('a site admin adds a model: stored with its md5, size, manifest and embedding size; everyone reads it', async () => {
  const bytes = energyModel(SAMPLES, { embedding: true })
  const res = await upload(admin, { name: 'energy', manifest: manifest(), file: file(bytes) })
  assert.is(res.statusCode, 201, res.body)
  assert.equal(Object.keys(res.data), [
    'id',
    'name',
    'version',
    'manifest',
    'md5',
    'size',
    'embeddingSize',
    'user',
    'creationDate',
  ])
  assert.equal(
    [res.data.name, res.data.version, res.data.size, res.data.embeddingSize, res.data.user],
    ['energy', '1.0', bytes.length, 4, admin.id],
  )
  assert.is(res.data.md5, createHash('md5').update(bytes).digest('hex'))
  assert.equal(res.data.manifest.labels, ['low half', 'high half'])
  assert.ok(
    storedFiles(t).some((f) => f.startsWith('models/') && f.endsWith('.onnx')),
    storedFiles(t).join(', '),
  )

  const listed = await t.call('GET', `${API}/model/`, { as: user })
  assert.is(listed.statusCode, 200)
  assert.equal(
    listed.data.results.map((m: { name: string }) => m.name),
    ['energy'],
  )
  assert.equal((await t.call('GET', `${API}/model/${res.data.id}/`, { as: user })).data, res.data)
  assert.is((await t.call('GET', `${API}/model/`)).statusCode, 401)
})

test('only site admins add, rename or delete models', async () => {
  const refused = await upload(user, {
    name: 'mine',
    manifest: manifest(),
    file: file(energyModel(SAMPLES, { embedding: true })),
  })
  assert.is(refused.statusCode, 403, refused.body)
  const made = await upload(admin, {
    name: 'to rename',
    manifest: manifest({ outputs: { scores: 'scores' } }),
    file: file(energyModel(SAMPLES)),
  })
  assert.is(made.statusCode, 201, made.body)
  assert.is((await t.call('PATCH', `${API}/model/${made.data.id}/`, { as: user, body: { name: 'x' } })).statusCode, 403)
  assert.is((await t.call('DELETE', `${API}/model/${made.data.id}/`, { as: user })).statusCode, 403)
  const renamed = await t.call('PATCH', `${API}/model/${made.data.id}/`, {
    as: admin,
    body: { name: 'renamed', md5: 'x' },
  })
  assert.equal([renamed.statusCode, renamed.data.name, renamed.data.md5], [200, 'renamed', made.data.md5])
  const files = storedFiles(t).length
  assert.is((await t.call('DELETE', `${API}/model/${made.data.id}/`, { as: admin })).statusCode, 204)
  assert.is(storedFiles(t).length, files - 1, 'its file is removed with it')
})

test('a model that does not load or does not match its manifest is refused with the reason, and nothing is kept', async () => {
  const before = storedFiles(t)
  const count = async () => (await t.db.selectFrom('models').select('id').execute()).length
  const models = await count()
  const cases: Array<[Record<string, string | { data: Buffer; filename: string }>, string, RegExp]> = [
    [
      { name: 'noise', manifest: manifest(), file: { data: Buffer.from('not a model'), filename: 'x.onnx' } },
      'file',
      /not an ONNX model ONNX Runtime can load/,
    ],
    [
      {
        name: 'wrong input',
        manifest: manifest({ input: { name: 'samples' } }),
        file: file(energyModel(SAMPLES, { embedding: true })),
      },
      'file',
      /no input "samples" \(its inputs: audio\)/,
    ],
    [{ name: 'wrong output', manifest: manifest(), file: file(energyModel(SAMPLES)) }, 'file', /no output "embedding"/],
    [
      {
        name: 'wrong window',
        manifest: manifest({ windowSeconds: 0.1 }),
        file: file(energyModel(SAMPLES, { embedding: true })),
      },
      'file',
      /one window of 1600 samples .* does not run/,
    ],
    [
      {
        name: 'wrong labels',
        manifest: manifest({ labels: ['one'] }),
        file: file(energyModel(SAMPLES, { embedding: true })),
      },
      'file',
      /gives 2 scores a window, but the manifest has 1 labels/,
    ],
    [
      {
        name: 'one label',
        manifest: manifest({ labels: ['a', 'b'], outputs: { scores: 'scores' } }),
        file: file(meanEnergyModel(SAMPLES)),
      },
      'file',
      /gives 1 scores a window, but the manifest has 2 labels/,
    ],
    [
      { name: 'bad manifest', manifest: '{"sampleRate": 3}', file: file(energyModel(SAMPLES)) },
      'manifest',
      /sampleRate must be a whole number of Hz from 1000 to 500000/,
    ],
    [
      { name: 'not json', manifest: 'sampleRate=3', file: file(energyModel(SAMPLES)) },
      'manifest',
      /the manifest is not JSON/,
    ],
    [{ name: 'no manifest', file: file(energyModel(SAMPLES)) }, 'manifest', /No manifest was submitted/],
    [{ name: 'no file', manifest: manifest() }, 'file', /No file was submitted/],
    [{ manifest: manifest(), file: file(energyModel(SAMPLES, { embedding: true })) }, 'name', /required/],
    [
      { name: 'energy', manifest: manifest(), file: file(energyModel(SAMPLES, { embedding: true })) },
      'name',
      /already exists/,
    ],
  ]
  for (const [parts, field, reason] of cases) {
    const res = await upload(admin, parts)
    assert.is(res.statusCode, 400, `${parts.name}: ${res.body}`)
    assert.match(String(res.data[field]?.[0]), reason, `${parts.name}: ${res.body}`)
  }
  assert.is(await count(), models)
  assert.equal(storedFiles(t), before)
})

test.run()
