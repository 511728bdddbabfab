import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// The real `mas` binary in a real pseudo-terminal: a tmux server of its own (private socket),
// one window running `mas args...`; the test types keys, reads the screen, reads every byte the
// command wrote to the terminal (to know whether it left the cursor shown) and asks tmux how it exited.

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
  /** every byte the command wrote to the terminal so far (escape codes included), as latin1 */
  written(): Promise<string>
  /** is the cursor shown: was the last cursor mode (DECTCEM) the command set "show"? */
  cursorVisible(): Promise<boolean>
  /** waits for the command to end; its exit status (128 + the signal that killed it, as a shell says) */
  exited(ms?: number): Promise<number>
  close(): Promise<void>
}

export async function terminal(
  args: string[],
  env: Record<string, string>,
  opts: { cwd?: string; width?: number; height?: number } = {},
): Promise<Terminal> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-tty-'))
  const socket = join(dir, 'tmux.sock')
  // the tmux server, started by the first call, passes its own environment (only `env`) to the command
  const tmux = async (...a: string[]) =>
    (
      await run('tmux', ['-S', socket, '-f', '/dev/null', ...a], {
        encoding: 'utf8',
        env: { TERM: 'xterm-256color', ...env },
      })
    ).stdout
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const raw = join(dir, 'raw')
  // A shell runs the command as a shell does: it waits for a first Enter (so that the recording of
  // the output is set up before the command starts), survives the command's Ctrl-C (a trap, which
  // the command does not inherit) and prints its exit status.
  await tmux(
    'new-session',
    '-d',
    '-s',
    'mas',
    '-x',
    String(opts.width ?? 120),
    '-y',
    String(opts.height ?? 30),
    ...(opts.cwd ? ['-c', opts.cwd] : []),
    `read go; trap true INT TERM; ${[process.execPath, BIN, ...args].map(quote).join(' ')}; echo "[exit $?]"`,
  )
  await tmux('set-option', '-t', 'mas', 'remain-on-exit', 'on')
  await tmux('pipe-pane', '-t', 'mas', '-O', `cat > ${quote(raw)}`)
  await tmux('send-keys', '-t', 'mas', 'Enter')
  const display = async (format: string) => (await tmux('display-message', '-p', '-t', 'mas', format)).trim()
  const screen = async () =>
    (await tmux('capture-pane', '-p', '-t', 'mas'))
      .split('\n')
      .filter((l) => !l.startsWith('Pane is dead'))
      .map((l) => l.trimEnd())
      .join('\n')
      .trimEnd() // tmux's own line, once the shell ended
  const written = async () => {
    await sleep(100) // what the pipe has not passed on yet
    return existsSync(raw) ? readFileSync(raw, 'latin1') : ''
  }
  const poll = async <T>(
    what: () => Promise<T | undefined>,
    ms: number,
    describe: () => Promise<string>,
  ): Promise<T> => {
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
    waitFor: (pattern, ms = 20_000) =>
      poll(
        async () => {
          const s = await screen()
          return pattern.test(s) ? s : undefined
        },
        ms,
        async () => `screen never matched ${pattern}:\n${await screen()}`,
      ),
    async keys(...keys) {
      await tmux('send-keys', '-t', 'mas', ...keys)
    },
    async signal(name) {
      const shell = await display('#{pane_pid}')
      const { stdout } = await run('pgrep', ['-P', shell])
      process.kill(Number(stdout.trim().split('\n')[0]), name)
    },
    written,
    async cursorVisible() {
      const bytes = await written()
      return bytes.lastIndexOf('\x1b[?25l') <= bytes.lastIndexOf('\x1b[?25h')
    },
    exited: (ms = 20_000) =>
      poll(
        async () => {
          const status = /\[exit (\d+)\]/.exec(existsSync(raw) ? readFileSync(raw, 'latin1') : '')
          return status ? Number(status[1]) : undefined
        },
        ms,
        async () => `the command did not end:\n${await screen()}`,
      ),
    async close() {
      await tmux('kill-server').catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
