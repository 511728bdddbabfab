import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'

// Callers are remembered for a few seconds per credential; a change made through
// this server must take effect on the very next request.

const t = suiteApp(test)
let admin: TestUser
test.before(async () => {
  admin = await t.user('cache-admin', { admin: true })
})

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
})

test('basic credentials: a remembered success never lets another password in; a password change applies at once', async () => {
  const user = await t.user('cache-basic')
  const good = basic(user.username, user.password)
  for (let i = 0; i < 3; i++) assert.is((await t.call('GET', '/api/v0/jobTypes/', { headers: good })).statusCode, 200)
  const wrong = await t.call('GET', '/api/v0/jobTypes/', { headers: basic(user.username, `${user.password}x`) })
  assert.is(wrong.statusCode, 401)
  assert.equal(wrong.data, { detail: 'Invalid username/password.' })
  const changed = await t.call('PATCH', `/api/v0/user/${user.id}/`, { as: admin, body: { password: 'a-new-password' } })
  assert.is(changed.statusCode, 200)
  assert.is((await t.call('GET', '/api/v0/jobTypes/', { headers: good })).statusCode, 401)
  assert.is(
    (await t.call('GET', '/api/v0/jobTypes/', { headers: basic(user.username, 'a-new-password') })).statusCode,
    200,
  )
})

test('a site admin demoted or deactivated through the API loses its rights on the next request', async () => {
  const other = await t.user('cache-other-admin', { admin: true })
  assert.is((await t.call('GET', '/api/v0/user/', { as: other })).statusCode, 200)
  assert.is(
    (await t.call('PATCH', `/api/v0/user/${other.id}/`, { as: admin, body: { is_admin: false } })).statusCode,
    200,
  )
  assert.is((await t.call('GET', '/api/v0/user/', { as: other })).statusCode, 403)
  assert.is((await t.call('GET', '/api/v0/jobTypes/', { as: other })).statusCode, 200)
  assert.is(
    (await t.call('PATCH', `/api/v0/user/${other.id}/`, { as: admin, body: { is_active: false } })).statusCode,
    200,
  )
  const inactive = await t.call('GET', '/api/v0/jobTypes/', { as: other })
  assert.is(inactive.statusCode, 401)
  // a deactivation ends the user's tokens
  assert.equal(inactive.data, { detail: 'Invalid token.' })
})

test('a refused write to a user forgets nothing it should not: the caller keeps working', async () => {
  const user = await t.user('cache-plain')
  assert.is(
    (await t.call('PATCH', `/api/v0/user/${admin.id}/`, { as: user, body: { is_admin: false } })).statusCode,
    403,
  )
  assert.is((await t.call('GET', '/api/v0/user/', { as: admin })).statusCode, 200)
  assert.is((await t.call('GET', '/api/v0/jobTypes/', { as: user })).statusCode, 200)
})

test.run()
