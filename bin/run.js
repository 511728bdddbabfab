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

const { execute } = await import('@oclif/core/execute')
await execute({ dir: import.meta.url })
