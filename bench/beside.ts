import { execFileSync } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// Where the shared material beside a checkout is looked for (the labelled recordings, the reference service):
// `relative` beside this checkout, and beside the checkout it was cloned from when it is a clone of a local one.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..') // dist/bench → the checkout

/** The places `relative` (e.g. shared/data) may be, nearest first. */
export function besideCheckout(relative: string): string[] {
  const candidates = [resolve(root, '..', relative)]
  try {
    const origin = execFileSync('git', ['config', '--get', 'remote.origin.url'], { cwd: root, encoding: 'utf8' }).trim()
    if (origin && !/^[a-z]+:\/\//.test(origin)) candidates.push(resolve(root, origin, '..', relative))
  } catch {
    /* not a clone */
  }
  return candidates
}
