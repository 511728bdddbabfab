import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_PROFILE, saveProfile } from '../../src/profiles.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { terminal, type Terminal } from './terminal.js'

// Running the real `mas` binary (bin/run.js) as a child process against a real server
// listening on an ephemeral port, with a HOME of its own.

const BIN = resolve(fileURLToPath(import.meta.url), '../../../../bin/run.js')

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliWorld {
  t: TestApp
  server: string
  home: string
  /** runs `mas args...` (runMas) with this world's HOME, or `home` */
  mas(args: string[], opts?: Parameters<typeof runMas>[1] & { home?: string }): Promise<Run>
  /** runs `mas args...` in a pseudo-terminal (tmux) with this world's HOME */
  tty(args: string[], opts?: { env?: Record<string, string>; home?: string; cwd?: string }): Promise<Terminal>
  /** a new HOME (another person at another terminal) */
  newHome(): string
  /** logs `user` in within `home` */
  login(user: TestUser, home?: string): Promise<Run>
  /** a new user named `username`, with the profile `mas login` would save within this world's HOME (or `home`): the
   * usual start of a CLI test */
  loggedIn(username: string, home?: string): Promise<TestUser>
  /** a tag set named `name` of the library named or numbered `library`, made by `user` through the API as `mas tagset
   * create NAME --library LIBRARY` makes it: for the tests whose subject is another command (its id) */
  tagSet(user: TestUser, name: string, library: string | number): Promise<number>
  close(): Promise<void>
}

/** The environment of a person whose home is `h` (profiles, caches and data under it). */
export function homeEnv(h: string): Record<string, string> {
  return {
    HOME: h,
    XDG_CONFIG_HOME: join(h, 'config'),
    XDG_DATA_HOME: join(h, 'data'),
    XDG_CACHE_HOME: join(h, 'cache'),
    MAS_RETRY_DELAY_MS: '20',
  }
}

export async function cliWorld(
  config: Parameters<typeof testApp>[0] = {},
  options: Parameters<typeof testApp>[1] = {},
): Promise<CliWorld> {
  const t = await testApp(config, options)
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const homes: string[] = []
  const newHome = () => {
    const h = mkdtempSync(join(tmpdir(), 'mas-cli-home-'))
    homes.push(h)
    return h
  }
  const home = newHome()
  const mas: CliWorld['mas'] = (args, opts = {}) =>
    runMas(args, { ...opts, env: { ...homeEnv(opts.home ?? home), ...opts.env } })
  const login: CliWorld['login'] = (user, h) =>
    mas(['login', '--server', address, '--username', user.username, '--password-stdin'], {
      input: `${user.password}\n`,
      home: h,
    })
  return {
    t,
    server: address,
    home,
    mas,
    newHome,
    tty: (args, opts = {}) =>
      terminal(args, { PATH: process.env.PATH ?? '', ...homeEnv(opts.home ?? home), ...opts.env }, { cwd: opts.cwd }),
    login,
    async loggedIn(username, h) {
      const user = await t.user(username)
      // the profile `mas login` would save (commands/login.ts: the token api-token-auth answers, the user's one),
      // written by the command line's own profile store: a test's start needs no process of its own (test/cli/auth.test.ts
      // runs `mas login` itself)
      await saveProfile(join(h ?? home, 'config', 'mas'), DEFAULT_PROFILE, {
        server: address,
        username: user.username,
        token: user.token,
      })
      return user
    },
    async tagSet(user, name, library) {
      const libraryId =
        typeof library === 'number'
          ? library
          : (await t.call('GET', `/api/v0/library/?page_size=1000`, { as: user })).data.results.find(
              (l: { name: string }) => l.name === library,
            )?.id
      if (libraryId === undefined) throw new Error(`no library named ${library} for ${user.username}`)
      const made = await t.call('POST', '/api/v0/tagSet/', { as: user, body: { name, library: libraryId } })
      if (made.statusCode !== 201) throw new Error(`tag set ${name}: ${made.statusCode} ${made.body}`)
      return made.data.id as number
    },
    async close() {
      await t.close()
      for (const h of homes) rmSync(h, { recursive: true, force: true })
    },
  }
}

/** Runs the real `mas` binary with `env` over the caller's environment stripped of MAS_*, XDG_* and
 * DEBUG; `input` is piped to stdin; `stdoutUpTo`: stop reading stdout (close the pipe) once that many
 * characters came, as `| head` does; `onStderr` hears stderr as it comes, with the child (to signal it). */
export function runMas(
  args: string[],
  opts: {
    input?: string | Buffer
    env?: Record<string, string | undefined>
    stdoutUpTo?: number
    onStderr?: (text: string, child: ChildProcess) => void
    /** hears the child as soon as it is started (to watch it, e.g. its memory in /proc) */
    onSpawn?: (child: ChildProcess) => void
    /** node's own options before the script (a benchmark's `--cpu-prof`) */
    nodeArgs?: string[]
    /** stdout written to this file, as `> FILE` does (the run's `stdout` is then empty) */
    stdoutFile?: string
    /** another build's `mas` (its bin/run.js), for a benchmark comparing two builds; default this checkout's */
    bin?: string
  } = {},
): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const env: Record<string, string | undefined> = { ...process.env }
    for (const k of Object.keys(env)) if (k.startsWith('MAS_') || k === 'DEBUG' || k.startsWith('XDG_')) delete env[k]
    Object.assign(env, opts.env ?? {})
    const file = opts.stdoutFile === undefined ? undefined : openSync(opts.stdoutFile, 'w')
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.bin ?? BIN, ...args], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', file ?? 'pipe', 'pipe'],
    })
    if (file !== undefined) closeSync(file)
    opts.onSpawn?.(child)
    let stdout = ''
    let stderr = ''
    child.stdout?.setEncoding('utf8').on('data', (c) => {
      stdout += c
      if (opts.stdoutUpTo !== undefined && stdout.length >= opts.stdoutUpTo) child.stdout?.destroy()
    })
    child.stderr!.setEncoding('utf8').on('data', (c) => {
      stderr += c
      opts.onStderr?.(stderr, child)
    })
    child.on('error', reject)
    child.on('close', (code) => resolveRun({ code, stdout, stderr }))
    child.stdin!.on('error', () => {})
    child.stdin!.end(opts.input ?? '')
  })
}

/** Parses stdout as JSON, with the run in the message when it is not. */
export function json(run: Run): any {
  try {
    return JSON.parse(run.stdout)
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`)
  }
}
