import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeTag } from '../../helpers/records.js'
import { makeRecords, tagRefs } from '../../helpers/world.js'

// OPTIONS of a record's detail path tells the methods the caller may use on it, to a client that asks with
// `Mas-Permitted-Methods: *` (docs/decisions.md §22); a request without it is answered as the original answers.

const t = suiteApp(test)
let owner: TestUser, reader: TestUser, writer: TestUser, stranger: TestUser, admin: TestUser
let library: number, tagSet: number, tag: number, mediaFile: number

test.before(async () => {
  owner = await t.user('pm_owner')
  reader = await t.user('pm_reader')
  writer = await t.user('pm_writer')
  stranger = await t.user('pm_stranger')
  admin = await t.user('pm_admin', { admin: true })
  const records = await makeRecords(t, owner, { library: 'pm-library', tagSet: 'pm-tags' })
  ;({ library, mediaFile, tagSet } = records)
  tag = await makeTag(t.db, owner, tagRefs(records))
  await grant(t.db, owner, { user: reader.id }, { library }, ['read'])
  await grant(t.db, owner, { user: writer.id }, { library }, ['read', 'write'])
})

const ASK = { 'mas-permitted-methods': '*' }
const permitted = async (path: string, as?: TestUser) => {
  const res = await t.call('OPTIONS', api(path), { ...(as ? { as } : {}), headers: ASK })
  assert.is(res.statusCode, 200)
  return res.headers['mas-permitted-methods']
}

test('the owner and a site admin may do everything with a library; a reader only read it; a stranger nothing', async () => {
  assert.is(await permitted(`library/${library}/`, owner), 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.is(await permitted(`library/${library}/`, admin), 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.is(await permitted(`library/${library}/`, reader), 'GET, HEAD, OPTIONS')
  assert.is(await permitted(`library/${library}/`, stranger), 'OPTIONS')
  assert.is(await permitted('library/999999/', owner), 'OPTIONS')
})

test('write lets a colleague change and delete tags, change a media file but not delete it (admin deletes it)', async () => {
  assert.is(await permitted(`tag/${tag}/`, writer), 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.is(await permitted(`tag/${tag}/`, reader), 'GET, HEAD, OPTIONS')
  assert.is(await permitted(`mediaFile/${mediaFile}/`, writer), 'GET, PUT, PATCH, HEAD, OPTIONS')
  assert.is(await permitted(`tagSet/${tagSet}/`, writer), 'GET, PUT, PATCH, HEAD, OPTIONS')
  assert.is(await permitted(`tagSet/${tagSet}/`, owner), 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
})

test('without the request header, or without a login, OPTIONS is answered as before: same body, same Allow, no header', async () => {
  const plain = await t.call('OPTIONS', api(`library/${library}/`), { as: reader })
  const asked = await t.call('OPTIONS', api(`library/${library}/`), { as: reader, headers: ASK })
  assert.is(plain.headers['mas-permitted-methods'], undefined)
  assert.is(plain.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.is(asked.headers.allow, plain.headers.allow)
  assert.equal(asked.data, plain.data)
  assert.is(await permitted(`library/${library}/`), undefined)
  // the answer to any other method carries no such header, asked or not
  const get = await t.call('GET', api(`library/${library}/`), { as: owner, headers: ASK })
  assert.is(get.headers['mas-permitted-methods'], undefined)
})

test.run()
