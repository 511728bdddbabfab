import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from 'node:inspector/promises'

// A CPU profile of this process (a benchmark that serves in-process), written where `stop` is told, in the
// format Chrome's DevTools and `node --cpu-prof` use.

export interface RunningProfile {
  stop(file: string): Promise<void>
}

export async function startProfile(): Promise<RunningProfile> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop')
      writeFileSync(file, JSON.stringify(profile))
      session.disconnect()
    },
  }
}

/** A script for a child's `NODE_OPTIONS=--require`, written into `dir`, that profiles the child from its start and
 * writes `dir/name` as it exits (Node 20 refuses `--cpu-prof` in NODE_OPTIONS); a same-thread inspector session
 * answers at once, so the profile is written within the exit handler. Its path is returned. */
export function profileHook(dir: string, name: string): string {
  const hook = join(dir, 'profile-hook.cjs')
  writeFileSync(
    hook,
    `const { Session } = require('node:inspector')
const { writeFileSync } = require('node:fs')
const session = new Session()
session.connect()
session.post('Profiler.enable')
session.post('Profiler.start')
process.on('exit', () => {
  session.post('Profiler.stop', (err, result) => {
    if (!err) writeFileSync(${JSON.stringify(join(dir, name))}, JSON.stringify(result.profile))
  })
})
`,
  )
  return hook
}
