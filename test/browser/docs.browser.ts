import { writeFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { testApp, type TestApp } from '../helpers/app.js'
import { openPage, type Page } from './chromium.js'

// The API reference page at /api/docs in headless Chromium (Debian's `chromium` package): it renders
// every operation of the OpenAPI document; a token entered under "Authorize" is sent by "Try it out".
// MAS_DOCS_SCREENSHOT names a file for a screenshot of the page. `npm run test:browser`, not `npm test`.

let t: TestApp
let origin: string
let page: Page | undefined

test.before(async () => {
  t = await testApp()
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
})

test.after(async () => {
  await page?.close()
  await t?.close()
})

/** sets an input the way typing does (React reads the input event) */
const typeInto = (selector: string, text: string) => `(() => {
  const input = document.querySelector(${JSON.stringify(selector)})
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${JSON.stringify(text)})
  input.dispatchEvent(new Event('input', { bubbles: true }))
  return true
})()`
const click = (selector: string) =>
  `(() => { const e = document.querySelector(${JSON.stringify(selector)}); e.click(); return true })()`

test('GET /api/docs renders every operation of the OpenAPI document', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
  const operations = Object.values<Record<string, unknown>>(doc.paths).flatMap((methods) =>
    Object.keys(methods).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)),
  ).length
  page = await openPage(`${origin}/api/docs`, { height: 60_000 })
  await page.waitFor(
    `document.querySelectorAll('.opblock-summary-method').length >= ${operations}`,
    `${operations} operations on the page`,
  )
  assert.is(await page.evaluate<number>(`document.querySelectorAll('.opblock-summary-method').length`), operations)
  for (const path of ['/api/v0/tag/', '/api/v0/library/{id}/mediaFiles/import/', '/api-token-auth/']) {
    assert.ok(
      await page.evaluate<boolean>(`!!document.querySelector('[data-path="${path}"]')`),
      `${path} is not on the page`,
    )
  }
  if (process.env.MAS_DOCS_SCREENSHOT) writeFileSync(process.env.MAS_DOCS_SCREENSHOT, await page.screenshot(1600))
})

test("a token entered under Authorize is sent by Try it out: GET library/ answers 200 with the caller's library", async () => {
  assert.ok(page, 'the page did not open')
  const alice = await t.user('docs-alice')
  await t.call('POST', '/api/v0/library/', { as: alice, body: { name: 'seen from the docs page' } })
  await page.evaluate(click('.btn.authorize'))
  await page.waitFor(`document.querySelector('.modal-ux input')`, 'the Authorize dialog')
  // the first scheme of the dialog is the token (Authorization: Token <key>)
  await page.evaluate(typeInto('.modal-ux .auth-container input', `Token ${alice.token}`))
  await page.evaluate(click('.modal-ux .auth-container .btn.modal-btn.auth.authorize'))
  await page.waitFor(
    `document.querySelector('.modal-ux .auth-container .btn.modal-btn.auth')?.textContent.includes('Logout')`,
    'the token taken',
  )
  await page.evaluate(click('.modal-ux .close-modal'))

  const block = `[...document.querySelectorAll('.opblock-get')].find((b) => b.querySelector('[data-path="/api/v0/library/"]'))`
  await page.evaluate(`(${block}).querySelector('.opblock-summary-control').click(), true`)
  // "Try it out" is on from the start (uiConfig.tryItOutEnabled): the operation opens with its Execute button
  await page.waitFor(`(${block}).querySelector('.execute')`, 'the Execute button')
  await page.evaluate(`(${block}).querySelector('.execute').click(), true`)
  await page.waitFor(`(${block}).querySelector('.live-responses-table tbody .response-col_status')`, 'the answer')
  assert.is(
    await page.evaluate<string>(
      `(${block}).querySelector('.live-responses-table tbody .response-col_status').textContent.trim()`,
    ),
    '200',
  )
  assert.match(
    await page.evaluate<string>(
      `(${block}).querySelector('.live-responses-table tbody .response-col_description').textContent`,
    ),
    'seen from the docs page',
  )
})

test('the page and its document need no login; the API does', async () => {
  const page = await t.app.inject({ method: 'GET', url: '/api/docs' })
  assert.is(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /text\/html/)
  const json = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
  assert.is(json.statusCode, 200)
  assert.equal(json.json().paths, (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json().paths)
  assert.equal(json.json().servers, [{ url: 'http://localhost:80' }])
  assert.is((await t.app.inject({ method: 'GET', url: '/api/v0/tag/' })).statusCode, 401)
})

test.run()
