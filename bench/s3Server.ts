import { startTestBucket } from '../test/helpers/s3.js'

// An s3rver bucket in a process of its own, so that benchmarks can tell its CPU time from the
// server's: prints the environment a `mas` process needs, as one JSON line, and serves until killed.

const bucket = await startTestBucket('mas-bench')
process.stdout.write(`${JSON.stringify(bucket.env('bench'))}\n`)
process.on('SIGTERM', () => {
  void bucket.close().finally(() => process.exit(0))
})
