import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The folders made by this test process, removed when it exits (whatever its tests did or did not clean). */
const made: string[] = []
const removeMade = () => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A new folder under the system's temporary folder that the embedded PostgreSQL's account may pass
 * through (mkdtemp makes it 0700; as root, PostgreSQL runs as another account); removed, with all it holds,
 * when the test process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  if (!made.length) process.once('exit', removeMade)
  made.push(dir)
  return dir
}
