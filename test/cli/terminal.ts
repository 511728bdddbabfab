import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// The real `mas` binary in a real pseudo-terminal: a tmux server of its own (private socket),
// one window running `mas args...`; the test types keys, reads the screen and asks tmux
// whether the cursor is visible and how the command exited.

const BIN = resolve(fileURLToPath(import.meta.url), '../../../../bin/run.js')
const run = promisify(execFile)

export interface Terminal {
  /** the visible screen, lines joined with \n, trailing blanks trimmed */
  screen(): Promise<string>
  /** waits until the screen matches (or throws with the screen after `ms`) */
  waitFor(pattern: RegExp, ms?: number): Promise<string>
  /** tmux key names or literal text (send-keys) */
  keys(...keys: string[]): Promise<void>
  /** sends a signal to the command's process (as the shell's job control would) */
  signal(name: NodeJS.Signals): Promise<void>
  /** is the cursor shown (DECTCEM), as the terminal last left it? */
  cursorVisible(): Promise<boolean>
  /** waits for the command to end; its exit status */
  exited(ms?: number): Promise<number>
  close(): Promise<void>
}

export async function terminal(args: string[], env: Record<string, string>, opts: { cwd?: string; width?: number; height?: number } = {}): Promise<Terminal> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-tty-'))
  const socket = join(dir, 'tmux.sock')
  // the tmux server, started by the first call, passes its own environment (only `env`) to the command
  const tmux = async (...a: string[]) =>
    (await run('tmux', ['-S', socket, '-f', '/dev/null', ...a], { encoding: 'utf8', env: { TERM: 'xterm-256color', ...env } })).stdout
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  await tmux('new-session', '-d', '-s', 'mas', '-x', String(opts.width ?? 120), '-y', String(opts.height ?? 30),
    ...(opts.cwd ? ['-c', opts.cwd] : []),
    `exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`)
  await tmux('set-option', '-t', 'mas', 'remain-on-exit', 'on')
  const display = async (format: string) => (await tmux('display-message', '-p', '-t', 'mas', format)).trim()
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'mas')).split('\n').map((l) => l.trimEnd()).join('\n').trimEnd()
  const poll = async <T>(what: () => Promise<T | undefined>, ms: number, describe: () => Promise<string>): Promise<T> => {
    const until = Date.now() + ms
    for (;;) {
      const value = await what()
      if (value !== undefined) return value
      if (Date.now() > until) throw new Error(await describe())
      await sleep(50)
    }
  }
  return {
    screen,
    waitFor: (pattern, ms = 20_000) => poll(async () => {
      const s = await screen()
      return pattern.test(s) ? s : undefined
    }, ms, async () => `screen never matched ${pattern}:\n${await screen()}`),
    async keys(...keys) { await tmux('send-keys', '-t', 'mas', ...keys) },
    async signal(name) {
      const pid = Number(await display('#{pane_pid}'))
      process.kill(pid, name)
    },
    async cursorVisible() { return (await display('#{cursor_flag}')) === '1' },
    exited: (ms = 20_000) => poll(async () => {
      if ((await display('#{pane_dead}')) !== '1') return undefined
      return Number(await display('#{pane_dead_status}'))
    }, ms, async () => `the command did not end:\n${await screen()}`),
    async close() {
      await tmux('kill-server').catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
