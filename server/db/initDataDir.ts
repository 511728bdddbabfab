import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'

// A new embedded data directory is created (initdb) in a short-lived child process: the memory the
// embedded engine takes for initdb is not given back to the system by a process that goes on running,
// and would stay in the server's resident memory for its whole life (about 500 MiB).

/** Create the embedded database files in `dir` unless they exist. */
export async function initDataDir(dir: string): Promise<void> {
  if (existsSync(join(dir, 'PG_VERSION'))) return
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), dir], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c })
  const code = await new Promise<number | null>((resolve, reject) => { child.once('error', reject); child.once('exit', resolve) })
  if (code !== 0) throw new Error(`creating the embedded database in ${dir} failed: ${stderr.trim().split('\n').pop() ?? `exit ${code}`}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const db = await PGlite.create({ dataDir: process.argv[2] })
  await db.close()
}
