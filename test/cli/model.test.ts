import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { energyModel } from '../helpers/onnx.js'
import { tempDir } from '../helpers/tempDir.js'
import { makeLibrary, makeTagSet } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// mas model add / list: an operator's ONNX model with its manifest (and a labels file, as BirdNET ships them).

let w: CliWorld
let admin: TestUser
let aliceHome: string
let alice: TestUser
const dir = tempDir('mas-models-')
const SAMPLES = 1600

test.before(async () => {
  w = await cliWorld()
  admin = await w.t.user('operator', { admin: true })
  alice = await w.t.user('alice')
  await w.login(admin)
  aliceHome = w.newHome()
  await w.login(alice, aliceHome)
  writeFileSync(join(dir, 'energy.onnx'), energyModel(SAMPLES, { embedding: true }))
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      sampleRate: 32_000,
      windowSeconds: SAMPLES / 32_000,
      input: { name: 'audio' },
      outputs: { scores: 'scores', embedding: 'embedding' },
      labels: ['x', 'y'],
      version: 'v2',
    }),
  )
  writeFileSync(join(dir, 'labels.txt'), '\uFEFFLow_Low half\r\nHigh_High half\r\n')
})
test.after(async () => {
  await w.close()
})

test('an admin adds a model with a labels file; every user lists it, with its rate, window and classes', async () => {
  const added = await w.mas([
    'model',
    'add',
    join(dir, 'energy.onnx'),
    '--manifest',
    join(dir, 'manifest.json'),
    '--labels',
    join(dir, 'labels.txt'),
  ])
  assert.is(added.code, 0, added.stderr)
  const id = Number(added.stdout.trim())
  assert.ok(id > 0, added.stdout)
  const listed = json(await w.mas(['model', 'list', '--json'], { home: aliceHome }))
  assert.equal(
    listed.map((m: any) => [m.id, m.name, m.version, m.manifest.labels, m.embeddingSize]),
    [[id, 'energy', 'v2', ['Low_Low half', 'High_High half'], 4]],
  )
  const table = await w.mas(['model', 'list'], { home: aliceHome })
  assert.match(table.stdout, /^ID\s+NAME\s+VERSION\s+RATE\s+WINDOW\s+CLASSES\s+EMBEDDING\s+CREATED\n/)
  assert.match(
    table.stdout,
    new RegExp(`\\n${id}\\s+energy\\s+v2\\s+32000\\s+0.05 s\\s+2\\s+4\\s+\\d{4}-`),
    table.stdout,
  )
})

test('a model that does not match its manifest, a user who is no admin, a missing file: one line and a non-zero exit', async () => {
  writeFileSync(
    join(dir, 'three.json'),
    JSON.stringify({
      sampleRate: 32_000,
      windowSeconds: SAMPLES / 32_000,
      input: { name: 'audio' },
      outputs: { scores: 'scores' },
      labels: ['a', 'b', 'c'],
    }),
  )
  const mismatch = await w.mas([
    'model',
    'add',
    join(dir, 'energy.onnx'),
    '--manifest',
    join(dir, 'three.json'),
    '--name',
    'three',
  ])
  assert.is(mismatch.code, 1)
  assert.match(mismatch.stderr, /gives 2 scores a window, but the manifest has 3 labels/)
  assert.is(mismatch.stderr.trim().split('\n').length, 1, mismatch.stderr)
  const notAdmin = await w.mas(
    ['model', 'add', join(dir, 'energy.onnx'), '--manifest', join(dir, 'manifest.json'), '--name', 'mine'],
    { home: aliceHome },
  )
  assert.is(notAdmin.code, 1)
  assert.match(notAdmin.stderr, /permission/i)
  const missing = await w.mas(['model', 'add', join(dir, 'nothing.onnx'), '--manifest', join(dir, 'manifest.json')])
  assert.equal([missing.code, missing.stderr.trim()], [1, `Error: ${join(dir, 'nothing.onnx')}: no such file`])
  assert.equal(
    json(await w.mas(['model', 'list', '--json'])).map((m: any) => m.name),
    ['energy'],
  )
})

test('a ModelInference job names its model, library and tag set by name', async () => {
  const library = await makeLibrary(w.t.db, alice, 'season')
  await makeTagSet(w.t.db, alice, library, 'BirdNET')
  const created = await w.mas(
    [
      'job',
      'create',
      '--type',
      'ModelInference',
      '--library',
      'season',
      '--param',
      'model=energy',
      '--param',
      'destinationTagSet=BirdNET',
      '--param',
      'minimumStrength=0.7',
      '--json',
    ],
    { home: aliceHome },
  )
  assert.is(created.code, 0, created.stderr)
  const params = Object.fromEntries(
    (
      await w.t.db
        .selectFrom('job_parameters')
        .select(['name', 'value'])
        .where('job_id', '=', json(created).id)
        .execute()
    ).map((p) => [p.name, p.value]),
  )
  // the model as given (the server finds it by name when the job runs, as it finds tag classes), the rest as ids
  assert.equal([params.model, params.library, params.minimumStrength], ['energy', String(library), '0.7'])
  const missing = await w.mas(
    [
      'job',
      'create',
      '--type',
      'ModelInference',
      '--library',
      'season',
      '--param',
      'model=BirdNET_V2.4',
      '--param',
      'destinationTagSet=BirdNET',
    ],
    { home: aliceHome },
  )
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /No model named "BirdNET_V2.4": mas model list shows those there are/)
})

test.run()
