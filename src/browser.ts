import { spawn } from 'node:child_process'

// Opening an address in the default browser: the desktop's own opener (`open` on macOS, `start` on Windows,
// `xdg-open` elsewhere, found on PATH), started detached and never waited for, since an opener may run as long
// as the browser it started. What keeps it from opening anything is told in words, for one line.

/** The opener to run for `url` here, or why no browser can be opened. */
export function opener(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[]; windows?: boolean } | { none: string } {
  if (platform === 'darwin') return { command: 'open', args: [url] }
  // `start` is cmd's; its first quoted argument is a window title, and & would end the command
  if (platform === 'win32')
    return { command: 'cmd', args: ['/c', 'start', '""', url.replace(/&/g, '^&')], windows: true }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return { none: 'no display here (DISPLAY and WAYLAND_DISPLAY are unset)' }
  return { command: 'xdg-open', args: [url] }
}

/** Opens `url` in the default browser; resolves once the opener has started, or to why it could not. An opener
 * that fails while this process still runs is told to `onFailure`. */
export function openBrowser(url: string, onFailure: (why: string) => void): Promise<string | undefined> {
  const how = opener(url)
  if ('none' in how) return Promise.resolve(how.none)
  return new Promise((resolve) => {
    const child = spawn(how.command, how.args, {
      detached: true,
      stdio: 'ignore',
      windowsVerbatimArguments: how.windows,
    })
    child.once('error', (err: NodeJS.ErrnoException) => {
      resolve(
        err.code === 'ENOENT'
          ? `${how.command} was not found on PATH`
          : `${how.command} could not be started (${err.message})`,
      )
    })
    child.once('spawn', () => {
      child.once('exit', (code) => {
        if (code) onFailure(`${how.command} ended with exit code ${code}`)
      })
      child.unref()
      resolve(undefined)
    })
  })
}
