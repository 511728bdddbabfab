import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { forgetToken, readProfile, readProfiles, saveProfile } from '../../src/profiles.js'
import { tempDir } from '../helpers/tempDir.js'

const fresh = () => join(tempDir('mas-profiles-'), 'mas')

test('a missing file is no profiles; saving creates a 0700 folder and a 0600 file, nothing left over', async () => {
  const dir = fresh()
  assert.equal(await readProfiles(dir), { profiles: {} })
  await saveProfile(dir, 'default', { server: 'http://a', username: 'alice', token: 't1' })
  assert.is(statSync(dir).mode & 0o777, 0o700)
  assert.is(statSync(join(dir, 'config.json')).mode & 0o777, 0o600)
  assert.equal(readdirSync(dir), ['config.json'])
  assert.equal(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')), {
    profiles: { default: { server: 'http://a', username: 'alice', token: 't1' } },
  })
})

test('profiles are kept side by side; forgetting a token keeps server and username', async () => {
  const dir = fresh()
  await saveProfile(dir, 'default', { server: 'http://a', username: 'alice', token: 't1' })
  await saveProfile(dir, 'lab', { server: 'http://b', username: 'bob', token: 't2' })
  assert.equal(await readProfile(dir, 'lab'), { server: 'http://b', username: 'bob', token: 't2' })
  assert.ok(await forgetToken(dir, 'default'))
  assert.not.ok(await forgetToken(dir, 'default'))
  assert.equal((await readProfiles(dir)).profiles, {
    default: { server: 'http://a', username: 'alice' },
    lab: { server: 'http://b', username: 'bob', token: 't2' },
  })
})

test('a broken file is a clear error, not a crash', async () => {
  const dir = fresh()
  await saveProfile(dir, 'default', { server: 'http://a' })
  writeFileSync(join(dir, 'config.json'), '{not json')
  try {
    await readProfiles(dir)
    assert.unreachable('should have thrown')
  } catch (err) {
    assert.match((err as Error).message, /is not valid JSON; fix or delete it/)
  }
})

test.run()
