import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'

// A 401 challenges for Basic as the original does (`Basic realm="api"`), so the standard clients that
// send their credentials only when challenged for them log in: Python's urllib HTTPBasicAuthHandler,
// `curl --anyauth` and `wget --user --password`, run here against a real port.

const run = promisify(execFile)
const t = suiteApp(test)
let alice: TestUser
let base: string

test.before(async () => {
  alice = await t.user('alice')
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})

const onPath = async (command: string) =>
  run('sh', ['-c', `command -v ${command}`]).then(
    () => true,
    () => false,
  )

test('a request without credentials, or with bad ones, is challenged for Basic in the realm "api"', async () => {
  for (const headers of [
    {} as Record<string, string>,
    { authorization: `Token ${'0'.repeat(40)}` },
    { authorization: 'Basic YWxpY2U6d3Jvbmc=' },
  ]) {
    const res = await t.call('GET', '/api/v0/jobTypes/', { headers })
    assert.is(res.statusCode, 401)
    assert.is(res.headers['www-authenticate'], 'Basic realm="api"')
  }
})

test("a page's script (X-Requested-With: XMLHttpRequest) is challenged for a token, so no browser asks for a password over the page", async () => {
  const res = await t.call('GET', '/api/v0/tagSet/', { headers: { 'x-requested-with': 'XMLHttpRequest' } })
  assert.is(res.statusCode, 401)
  assert.is(res.headers['www-authenticate'], 'Token')
})

test("Python's HTTPBasicAuthHandler logs in on the challenge", async () => {
  const script = [
    'import json, sys, urllib.request',
    'manager = urllib.request.HTTPPasswordMgrWithDefaultRealm()',
    'manager.add_password(None, sys.argv[1], sys.argv[2], sys.argv[3])',
    'opener = urllib.request.build_opener(urllib.request.HTTPBasicAuthHandler(manager))',
    'print(json.load(opener.open(sys.argv[1] + "/api/v0/jobTypes/"))["count"])',
  ].join('\n')
  const { stdout } = await run('python3', ['-c', script, base, alice.username, alice.password])
  assert.ok(Number(stdout.trim()) > 0, stdout)
})

test('curl --anyauth and wget --user/--password log in on the challenge, where installed', async () => {
  const clients: Array<[string, string[]]> = [
    ['curl', ['-sf', '--anyauth', '-u', `${alice.username}:${alice.password}`, `${base}/api/v0/jobTypes/`]],
    ['wget', ['-qO-', `--user=${alice.username}`, `--password=${alice.password}`, `${base}/api/v0/jobTypes/`]],
  ]
  for (const [command, args] of clients) {
    if (!(await onPath(command))) continue
    const { stdout } = await run(command, args)
    assert.ok(JSON.parse(stdout).count > 0, `${command}: ${stdout}`)
  }
})

test.run()
