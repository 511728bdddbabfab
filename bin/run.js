#!/usr/bin/env node
import { execute } from '@oclif/core'

// a reader that stops early (mas tag export | head) ends the command quietly, whatever was writing
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

await execute({ dir: import.meta.url })
