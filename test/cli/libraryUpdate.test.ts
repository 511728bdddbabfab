import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cliWorld, json, type CliWorld } from './cli.js'

// `mas library update`: a library renamed, and its speech policy set by name, through the real binary.

let w: CliWorld

test.before(async () => {
  w = await cliWorld()
  await w.loggedIn('alice')
  assert.is((await w.mas(['library', 'create', 'Dawn chorus'])).code, 0)
})
test.after(async () => {
  await w.close()
})

test('sets the speech policy of a library named, and says a scan is queued', async () => {
  const run = await w.mas(['library', 'update', 'Dawn chorus', '--speech-policy', 'mute'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /^Library \d+ 'Dawn chorus': speech policy mute \(a speech scan is queued/)
  const listed = json(await w.mas(['library', 'list', '--json'])).find(
    (l: { name: string }) => l.name === 'Dawn chorus',
  )
  assert.is(listed.speechPolicy, 'mute')
})

test('renames a library', async () => {
  const run = await w.mas(['library', 'update', 'Dawn chorus', '--name', 'Dusk chorus', '--json'])
  assert.is(run.code, 0, run.stderr)
  assert.is(json(run).name, 'Dusk chorus')
})

test('refuses a policy it does not know, and an update of nothing, in one line', async () => {
  const bad = await w.mas(['library', 'update', 'Dusk chorus', '--speech-policy', 'quiet'])
  assert.is.not(bad.code, 0)
  assert.match(bad.stderr, /quiet/)
  const nothing = await w.mas(['library', 'update', 'Dusk chorus'])
  assert.is(nothing.code, 2)
  assert.match(nothing.stderr, /Nothing to change: give --name or --speech-policy\./)
  assert.is(nothing.stderr.trim().split('\n').length, 1, nothing.stderr)
})

test.run()
