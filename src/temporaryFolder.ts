import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// A folder of the CLI's own temporary files (a spooled export, standard input read twice): removed when its user is
// done with it, or when the process exits first (an interrupted command exits at once and must leave none behind).

export interface TemporaryFolder {
  path: string
  /** removes the folder and all it holds; once removed, the process's exit has nothing left to remove */
  remove(): void
}

export function temporaryFolder(prefix: string): TemporaryFolder {
  const path = mkdtempSync(join(tmpdir(), prefix))
  const removeNow = () => rmSync(path, { recursive: true, force: true })
  process.once('exit', removeNow)
  return {
    path,
    remove() {
      process.off('exit', removeNow)
      removeNow()
    },
  }
}
