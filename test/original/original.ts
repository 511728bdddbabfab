import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiClient } from '../../src/api.js'
import { homeEnv, runMas, type Run } from '../cli/cli.js'

// The real `mas` binary against a running original service (docs/decisions.md §10), given by the environment:
//   MAS_ORIGINAL_URL            e.g. http://127.0.0.1:8001 (required: without it every test fails)
//   MAS_ORIGINAL_ADMIN          site admin as user:password     (default admin:admin-pass)
//   MAS_ORIGINAL_USER           a plain user as user:password   (default alice:alice-pass)
//   MAS_ORIGINAL_OTHER_USER     another plain user              (default bob:bob-pass)
// Records are made with names unique to the run, so the service may hold other data.

export interface OriginalUser {
  username: string
  password: string
  id: number
  home: string
  api: ApiClient
}

export interface OriginalWorld {
  url: string
  admin: OriginalUser
  alice: OriginalUser
  bob: OriginalUser
  /** a name unique to this run */
  unique(name: string): string
  /** `mas args...` as `who` (logged in to the original) */
  mas(who: OriginalUser, args: string[], opts?: Parameters<typeof runMas>[1]): Promise<Run>
  close(): void
}

function account(variable: string, fallback: string): { username: string; password: string } {
  const value = process.env[variable] || fallback
  const colon = value.indexOf(':')
  if (colon <= 0) throw new Error(`${variable} must be user:password, not "${value}"`)
  return { username: value.slice(0, colon), password: value.slice(colon + 1) }
}

export async function originalWorld(): Promise<OriginalWorld> {
  const url = process.env.MAS_ORIGINAL_URL
  if (!url)
    throw new Error(
      'MAS_ORIGINAL_URL is not set: these tests need a running original service (see the README, "Against the original service")',
    )
  const homes: string[] = []
  const run = Date.now().toString(36)
  let count = 0
  const login = async (variable: string, fallback: string): Promise<OriginalUser> => {
    const { username, password } = account(variable, fallback)
    const home = mkdtempSync(join(tmpdir(), 'mas-original-home-'))
    homes.push(home)
    const logged = await runMas(['login', '--server', url, '--username', username, '--password-stdin'], {
      input: `${password}\n`,
      env: homeEnv(home),
    })
    if (logged.code !== 0)
      throw new Error(`mas login as ${username} at ${url} failed (exit ${logged.code}): ${logged.stderr.trim()}`)
    const answer = await new ApiClient({ server: url }).tokenLogin(username, password)
    const api = new ApiClient({ server: url, token: answer.data.token })
    return { username, password, home, api, id: 0 }
  }
  const admin = await login('MAS_ORIGINAL_ADMIN', 'admin:admin-pass')
  const alice = await login('MAS_ORIGINAL_USER', 'alice:alice-pass')
  const bob = await login('MAS_ORIGINAL_OTHER_USER', 'bob:bob-pass')
  const users = await admin.api.all<{ id: number; username: string }>('user/')
  for (const u of [admin, alice, bob]) {
    const found = users.find((x) => x.username === u.username)
    if (!found) throw new Error(`user/ of ${url} has no ${u.username}`)
    u.id = found.id
  }
  return {
    url,
    admin,
    alice,
    bob,
    unique: (name) => `${name} ${run}-${++count}`,
    mas: (who, args, opts = {}) => runMas(args, { ...opts, env: { ...homeEnv(who.home), ...opts.env } }),
    close: () => {
      for (const h of homes) rmSync(h, { recursive: true, force: true })
    },
  }
}
