import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { terminal, type Terminal } from '../cli/terminal.js'
import { serverHome, type ServerHome } from '../helpers/server.js'

// The log of `mas server start` as its reader meets it: one readable line per request on a terminal,
// JSON lines on a pipe or with --log-format json; never a password or a token.

let home: ServerHome
test.before(async () => {
  home = await serverHome()
})
test.after(async () => {
  await home.cleanup()
})

const PASSWORD = 'root-pass' // serverHome's MAS_ADMIN_PASSWORD

/** A few requests a CLI makes: a token login (password in the body), an authenticated list, a 404, a bad login. */
async function someRequests(url: string): Promise<string> {
  const login = await fetch(`${url}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: PASSWORD }),
  })
  assert.is(login.status, 200)
  const { token } = (await login.json()) as { token: string }
  assert.is(
    (await fetch(`${url}/api/v0/library/?page_size=5`, { headers: { authorization: `Token ${token}` } })).status,
    200,
  )
  assert.is((await fetch(`${url}/api/v0/library/99999/`, { headers: { authorization: `Token ${token}` } })).status, 404)
  const wrong = await fetch(`${url}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `username=root&password=${PASSWORD}-wrong`,
  })
  assert.is(wrong.status, 400)
  return token
}

async function serverInTerminal(args: string[]): Promise<{ tty: Terminal; url: string }> {
  const tty = await terminal(['server', 'start', '--port', '0', '--data-dir', home.dataDir, ...args], {
    PATH: process.env.PATH ?? '',
    ...home.env,
  })
  const screen = await tty.waitFor(/mas is serving on (http:\/\/127\.0\.0\.1:\d+)/, 60_000)
  return { tty, url: /mas is serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(screen)![1] }
}

const noSecrets = (log: string, token: string) => {
  assert.not.ok(log.includes(PASSWORD), 'the password is in the log')
  assert.not.ok(log.includes(token), 'the token is in the log')
}

test("on a terminal: one readable, coloured line per request (method, path, status, ms, a refusal's reason), no JSON; Ctrl-C ends it with what stopped", async () => {
  const { tty, url } = await serverInTerminal([])
  try {
    const token = await someRequests(url)
    const screen = await tty.waitFor(/POST \/api-token-auth\/ 400 [\d.]+ ms/)
    const requestLines = screen.split('\n').filter((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|ERROR): [A-Z]+ \//.test(l))
    assert.equal(
      requestLines.map((l) => l.replace(/^\[[\d:.]+\] /, '').replace(/[\d.]+ ms/, 'N ms')),
      [
        'INFO: POST /api-token-auth/ 200 N ms',
        'INFO: GET /api/v0/library/?page_size=5 200 N ms',
        'INFO: GET /api/v0/library/99999/ 404 N ms — Not found.',
        'INFO: POST /api-token-auth/ 400 N ms — Unable to log in with provided credentials.',
      ],
      screen,
    )
    assert.match(screen, /INFO: created the first admin user "root"/)
    assert.not.match(screen, /\{"level"|incoming request|request completed/)
    const written = await tty.written()
    assert.match(written, /\x1b\[33m404\x1b\[/, 'the status of a 404 is yellow')
    noSecrets(written, token)
    await tty.keys('C-c')
    assert.is(await tty.exited(30_000), 0)
    assert.match(await tty.screen(), new RegExp(`INFO: stopped: server on ${url} and its job worker\n`))
  } finally {
    await tty.close()
  }
})

test('on a pipe: JSON lines, fastify\'s "incoming request" and "request completed"', async () => {
  const s = await home.start()
  try {
    const token = await someRequests(s.url)
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0)
    const lines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    const entries = lines.map(
      (l) =>
        JSON.parse(l) as {
          msg: string
          req?: { method: string; url: string }
          res?: { statusCode: number }
          reason?: string
        },
    )
    assert.is(entries.filter((e) => e.msg === 'incoming request').length, 4)
    assert.equal(
      entries.filter((e) => e.msg === 'request completed').map((e) => [e.res?.statusCode, e.reason]),
      [
        [200, undefined],
        [200, undefined],
        [404, 'Not found.'],
        [400, 'Unable to log in with provided credentials.'],
      ],
    )
    assert.ok(entries.some((e) => e.req?.url === '/api/v0/library/99999/'))
    noSecrets(s.output(), token)
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL')
  }
})

test('--log-format json on a terminal: JSON lines there too', async () => {
  const { tty, url } = await serverInTerminal(['--log-format', 'json'])
  try {
    const token = await someRequests(url)
    await tty.keys('C-c')
    assert.is(await tty.exited(30_000), 0)
    const written = await tty.written()
    const entries = written
      .split(/\r?\n/)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string })
    assert.is(entries.filter((e) => e.msg === 'request completed').length, 4)
    assert.is(entries.filter((e) => e.msg === 'incoming request').length, 4)
    assert.not.match(written, /INFO: GET/)
    noSecrets(written, token)
  } finally {
    await tty.close()
  }
})

test.run()
