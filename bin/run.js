#!/usr/bin/env node
import module from 'node:module'

// V8's compile cache (Node 22.1 and later): each later start of `mas` reuses the code compiled by the
// first instead of compiling oclif and the command again. Enabled before anything else is imported.
module.enableCompileCache?.()

// a reader that stops early (mas tag export | head) ends the command quietly, whatever was writing
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

// as @oclif/core's execute() does, but a flag the command lacks is refused in one line naming the nearest it has,
// for the commands outside BaseCommand too (which refuses so itself)
// (handled at once, as execute() does: nothing else is printed between a command's end and the process's)
const [{ run }, { handle }, { flush }, { withUnknownFlagsLine }] = await Promise.all([import('@oclif/core/run'),
  import('@oclif/core/handle'), import('@oclif/core/flush'), import('../dist/src/refusals.js')])
await run(process.argv.slice(2), import.meta.url)
  .then(() => flush())
  .catch((error) => handle(withUnknownFlagsLine(error)))
