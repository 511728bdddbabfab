#!/usr/bin/env node
import module from 'node:module'
import v8 from 'node:v8'

// V8's compile cache (Node 22.1 and later): each later start of `mas` reuses the code compiled by the
// first instead of compiling oclif and the command again. Enabled before anything else is imported.
module.enableCompileCache?.()

// The commands stream (imports and exports read and send a chunk, a batch at a time), so what they hold live is
// small (12-27 MB through a 10^6-row tag import), but V8 let the heap grow to 60-108 MB between full collections.
// An old generation grown by a quarter of what it holds after each full collection keeps that import near 145 MB
// (npm run bench:interchange; docs/decisions.md §32). V8 reads this flag whenever it grows the old generation, so it
// works set here; the young generation's size (16 MB semi-spaces) it reads only when the heap is made, so it is not
// set here. V8's small-device sizing (--optimize-for-size), used before, kept it 15 MB lower but collected the old
// generation over and over, an export of a Camtrap DP package taking twice as long.
// Not for the processes that serve (server start, worker start): their heap is sized in server/heap.ts.
const serving = ['server', 'worker'].includes(process.argv[2]) && process.argv[3] === 'start'
if (!serving) v8.setFlagsFromString('--heap-growing-percent=25')

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
