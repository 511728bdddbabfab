import { chmodSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A new folder under the system's temporary folder that the embedded PostgreSQL's account may pass
 * through (mkdtemp makes it 0700; as root, PostgreSQL runs as another account). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  return dir
}
