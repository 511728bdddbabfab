import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { testApp, type TestApp } from '../helpers/app.js'

// The API reference page at /api/docs in headless Chromium (Debian's `chromium` package): the page
// renders every operation of the OpenAPI document, with the button where a token is entered. A
// screenshot goes to MAS_DOCS_SCREENSHOT when set. Run by `npm run test:browser`, not `npm test`.

const run = promisify(execFile)
const CHROMIUM = process.env.CHROMIUM ?? 'chromium'
const profile = mkdtempSync(join(tmpdir(), 'mas-chromium-'))
let t: TestApp
let origin: string

test.before(async () => {
  t = await testApp()
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
})

test.after(async () => {
  await t?.close()
  rmSync(profile, { recursive: true, force: true })
})

/** Chromium, headless, on `url` with `args`; fails with the reason when it cannot run. */
async function chromium(url: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', `--user-data-dir=${profile}`,
      '--virtual-time-budget=20000', '--window-size=1280,2000', ...args, url,
    ], { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 })
    return stdout
  } catch (err: any) {
    if (err?.code === 'ENOENT') throw new Error(`${CHROMIUM} is not installed (Debian: apt-get install -y chromium; or set CHROMIUM)`)
    throw err
  }
}

test('GET /api/docs renders every operation of the OpenAPI document and an Authorize button for a token', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
  const operations = Object.values<Record<string, unknown>>(doc.paths)
    .flatMap((methods) => Object.keys(methods).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))).length
  const dom = await chromium(`${origin}/api/docs`, ['--dump-dom'])
  assert.match(dom, /class="swagger-ui/, 'Swagger UI did not render')
  const shown = dom.match(/class="opblock-summary-method"/g)?.length ?? 0
  assert.is(shown, operations, `operations on the page: ${shown} of ${operations}`)
  for (const path of ['/api/v0/tag/', '/api/v0/library/{id}/mediaFiles/import/', '/api-token-auth/']) {
    assert.ok(dom.includes(`data-path="${path}"`), `${path} is not on the page`)
  }
  assert.match(dom, /class="btn authorize/, 'no Authorize button (where a token is entered)')
})

test('the page and its document need no login; the operations it tries do', async () => {
  const page = await t.app.inject({ method: 'GET', url: '/api/docs' })
  assert.is(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /text\/html/)
  const json = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
  assert.is(json.statusCode, 200)
  assert.equal(json.json().paths, (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json().paths)
  assert.equal(json.json().servers, [{ url: 'http://localhost:80' }])
  assert.is((await t.app.inject({ method: 'GET', url: '/api/v0/tag/' })).statusCode, 401)
})

test('a screenshot of the page', async () => {
  const out = process.env.MAS_DOCS_SCREENSHOT ?? join(profile, 'api-docs.png')
  await chromium(`${origin}/api/docs`, [`--screenshot=${out}`])
  const png = readFileSync(out)
  assert.equal([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], 'not a PNG')
  assert.ok(png.length > 20_000, `a ${png.length}-byte picture: the page looks empty`)
})

test.run()
