#!/usr/bin/env node
import module from 'node:module'
import v8 from 'node:v8'

// V8's compile cache (Node 22.1 and later): each later start of `mas` reuses the code compiled by the
// first instead of compiling oclif and the command again. Enabled before anything else is imported.
module.enableCompileCache?.()

// The commands stream (imports and exports read and send a chunk, a batch at a time), so what they hold live is
// small (12-27 MB through a 10^6-row tag import), but V8 let the heap grow to 60-108 MB between full collections
// and the young generation to 48 MB, and the process's peak to 200-220 MB. Small semi-spaces and V8's heap sizing
// for memory over speed keep that import at about 130 MB (test/cli/importMemory.test.ts; docs/decisions.md §32).
// Not for the processes that serve (server start, worker start): they hold caches and answer many requests at
// once, where V8's default sizing for speed is the one their benchmarks were measured with.
const serving = ['server', 'worker'].includes(process.argv[2]) && process.argv[3] === 'start'
if (!serving) {
  v8.setFlagsFromString('--max-semi-space-size=2')
  v8.setFlagsFromString('--optimize-for-size')
}

// a reader that stops early (mas tag export | head) ends the command quietly, whatever was writing; a server whose
// log reader went (Ctrl-C on `npm start | tee log` ends tee too) goes on to stop as the signal asks, its embedded
// PostgreSQL with it, its last lines unread
for (const stream of serving ? [process.stdout, process.stderr] : [process.stdout])
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err
    if (!serving) process.exit(0)
  })

// as @oclif/core's execute() does, but a flag the command lacks is refused in one line naming the nearest it has,
// for the commands outside BaseCommand too (which refuses so itself)
// (handled at once, as execute() does: nothing else is printed between a command's end and the process's)
const [{ run }, { handle }, { flush }, { withUnknownFlagsLine }] = await Promise.all([
  import('@oclif/core/run'),
  import('@oclif/core/handle'),
  import('@oclif/core/flush'),
  import('../dist/src/refusals.js'),
])
await run(process.argv.slice(2), import.meta.url)
  .then(() => flush())
  .catch((error) => handle(withUnknownFlagsLine(error)))
