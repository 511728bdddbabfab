import { writeFileSync } from 'node:fs'
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
