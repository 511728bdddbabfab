import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'

// Headless Chromium (Debian's `chromium` package, or CHROMIUM) driven over the DevTools protocol
// on a pipe (--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4), so a test can
// wait for a page to render, read it, type and click.

const CHROMIUM = process.env.CHROMIUM ?? 'chromium'

export interface Page {
  /** the value of a JavaScript expression in the page (promises awaited) */
  evaluate<T = unknown>(expression: string): Promise<T>
  /** waits until the expression is truthy, failing with `what` after `ms` */
  waitFor(expression: string, what: string, ms?: number): Promise<void>
  /** presses and releases the left mouse button at (x, y) of the viewport, as a person clicks */
  click(x: number, y: number): Promise<void>
  /** presses and releases a key as the keyboard does (`key` as KeyboardEvent.key names it: 'y', 'ArrowRight') */
  press(key: string): Promise<void>
  /** a PNG of the top of the page, `height` pixels of it */
  screenshot(height: number): Promise<Buffer>
  close(): Promise<void>
}

/** `url` in a window `width` by `height` pixels (a page that renders only what is in view, as Swagger UI
 * does, renders all of itself in a tall enough window); `mobile`: as a phone shows it (the page's viewport
 * meta tag applies, touch). */
export async function openPage(url: string, { width = 1280, height = 1600, mobile = false } = {}): Promise<Page> {
  const profile = mkdtempSync(join(tmpdir(), 'mas-chromium-'))
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      '--remote-debugging-pipe',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  )
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error(`${CHROMIUM} is not installed (Debian: apt-get install -y chromium; or set CHROMIUM)`)
          : err,
      ),
    )
    child.once('spawn', resolve)
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    stderr = (stderr + c).slice(-4000)
  })
  await started
  const input = child.stdio[3] as Writable
  const output = child.stdio[4] as Readable
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>()
  let buffer = ''
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk
    let end: number
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end))
      buffer = buffer.slice(end + 1)
      const pending = message.id !== undefined ? waiting.get(message.id) : undefined
      if (!pending) continue
      waiting.delete(message.id)
      if (message.error)
        pending.reject(new Error(`${message.error.message} (${JSON.stringify(message.error.data ?? '')})`))
      else pending.resolve(message.result)
    }
  })
  child.once('exit', (code) => {
    for (const p of waiting.values()) p.reject(new Error(`chromium exited (${code}): ${stderr}`))
    waiting.clear()
  })
  let next = 0
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++next
      waiting.set(id, { resolve, reject })
      input.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0')
    })

  const { targetId } = await send('Target.createTarget', { url: 'about:blank' })
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true })
  await send('Page.enable', {}, sessionId)
  await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile }, sessionId)
  await send('Page.navigate', { url }, sessionId)

  const evaluate = async <T>(expression: string): Promise<T> => {
    const answer = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)
    if (answer.exceptionDetails)
      throw new Error(`in the page: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`)
    return answer.result.value as T
  }
  return {
    evaluate,
    async waitFor(expression, what, ms = 60_000) {
      const until = Date.now() + ms
      // a page navigating (a reload, a new address) answers no evaluation until its new document is there: asked again
      const check = () =>
        evaluate<boolean>(`Boolean(${expression})`).catch((e: Error) => {
          if (/navigated or closed|context was destroyed|Cannot find context/.test(e.message)) return false
          throw e
        })
      while (!(await check())) {
        if (Date.now() > until) throw new Error(`waited ${ms / 1000} s for ${what}`)
        await new Promise((r) => setTimeout(r, 200))
      }
    },
    async click(x, y) {
      const at = { x, y, button: 'left', clickCount: 1 }
      await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y }, sessionId)
      await send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at }, sessionId)
      await send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at }, sessionId)
    },
    async press(key) {
      const printable = key.length === 1
      // a full stop's key code is its own (190): its character code, 46, is the Delete key's
      const code = printable
        ? /[0-9]/.test(key)
          ? `Digit${key}`
          : key === '.'
            ? 'Period'
            : `Key${key.toUpperCase()}`
        : key
      const keyCode = printable
        ? key === '.'
          ? 190
          : key.toUpperCase().charCodeAt(0)
        : (({ ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40 } as Record<string, number>)[key] ?? 0)
      const base = { key, code, windowsVirtualKeyCode: keyCode, nativeVirtualKeyCode: keyCode }
      await send(
        'Input.dispatchKeyEvent',
        { type: printable ? 'keyDown' : 'rawKeyDown', ...base, ...(printable ? { text: key } : {}) },
        sessionId,
      )
      await send('Input.dispatchKeyEvent', { type: 'keyUp', ...base }, sessionId)
    },
    async screenshot(shown) {
      const { data } = await send(
        'Page.captureScreenshot',
        { format: 'png', clip: { x: 0, y: 0, width, height: Math.min(shown, height), scale: 1 } },
        sessionId,
      )
      return Buffer.from(data, 'base64')
    },
    async close() {
      await send('Browser.close').catch(() => {})
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r))
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
