import { readFileSync, rmSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { tempDir } from '../test/helpers/tempDir.js'
import { benchArgs, runBench, usageError } from './args.js'
import { adminToken, cpuSeconds, json, startImportServer, uploadFile } from './importServer.js'
import { writeLongRecording } from './longRecording.js'
import { peakMemory, processTree } from './memory.js'

// Overview benchmark (npm run bench:overview): a generated H-hour recording (48 kHz by default, RF64 past
// 4 GiB) imported into a `mas server start` of its own, then its whole-recording picture drawn with no
// range (GET mediaFile/{Id}/spectra/?format=png): the seconds it takes and the peak RSS of the server's mas
// processes (its threads included) while it draws; the targets of issue 47 are < 400 MB and ≤ 60 s for 24 h.

const USAGE = `
Usage: npm run bench:overview -- [--hours H] [--rate HZ] [--width PX] [--statistic max|mean]
  --hours H      length of the generated recording (default 24)
  --rate HZ      its sample rate (default 48000)
  --width PX     the picture's width (default: the server's)
  --statistic S  what a column shows of its frames: max (default) or mean`

const { values } = benchArgs(USAGE, {
  options: {
    hours: { type: 'string', default: '24' },
    rate: { type: 'string', default: '48000' },
    width: { type: 'string' },
    statistic: { type: 'string', default: 'max' },
  },
})
const HOURS = Number(values.hours)
const RATE = Number(values.rate)
if (!(HOURS > 0)) usageError(USAGE, `--hours: a positive number of hours, not ${values.hours}`)
if (!Number.isInteger(RATE) || RATE < 1000)
  usageError(USAGE, `--rate: a whole number of Hz from 1000, not ${values.rate}`)

/** CPU seconds so far of the server's mas processes (its threads included), not its PostgreSQL. */
function masCpuSeconds(pid: number): number {
  let total = 0
  for (const p of processTree(pid)) {
    try {
      if (!/^Name:\s+postgres$/m.test(readFileSync(`/proc/${p}/status`, 'utf8'))) total += cpuSeconds(p)
    } catch {
      /* gone */
    }
  }
  return total
}

async function main() {
  const dir = tempDir('mas-bench-overview-')
  const server = await startImportServer()
  try {
    const path = join(dir, 'day.wav')
    let started = Date.now()
    await writeLongRecording(path, { hours: HOURS, sampleRate: RATE, seed: 11 })
    const bytes = statSync(path).size
    console.log(
      `a ${HOURS} h ${RATE} Hz 16-bit recording (${(bytes / 2 ** 30).toFixed(2)} GiB${bytes > 2 ** 32 ? ', RF64' : ''}), written in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    )
    const token = await adminToken(server.base)
    const library = (await json(server.base, 'POST', '/api/v0/library/', token, { name: 'overview' })).id
    started = Date.now()
    const id = await uploadFile(server, token, library, `day-${HOURS}h.wav`, path)
    rmSync(path)
    console.log(`imported in ${((Date.now() - started) / 1000).toFixed(0)} s`)
    const query = new URLSearchParams({
      format: 'png',
      statistic: values.statistic,
      ...(values.width ? { width: values.width } : {}),
    })
    started = Date.now()
    const cpu = masCpuSeconds(server.child.pid!)
    const drawn = await peakMemory(server.child.pid!, server.dataDir, async () => {
      const res = await fetch(`${server.base}/api/v0/mediaFile/${id}/spectra/?${query}`, {
        headers: { authorization: `Token ${token}` },
      })
      if (!res.ok) throw new Error(`the picture: ${res.status} ${await res.text()}`)
      return (await res.arrayBuffer()).byteLength
    })
    const seconds = (Date.now() - started) / 1000
    const used = masCpuSeconds(server.child.pid!) - cpu
    console.log(
      `whole-recording picture (${query}): ${drawn.result} bytes in ${seconds.toFixed(1)} s (target ≤ 60 for 24 h), ${used.toFixed(1)} CPU s` +
        ` (${(used / HOURS).toFixed(1)} an hour of audio), load average ${loadavg()[0].toFixed(1)} after;` +
        ` peak RSS of the server's mas processes ${drawn.peak.toFixed(0)} MiB, ${drawn.before.toFixed(0)} MiB before (target < 400 MB)`,
    )
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await runBench(main)
