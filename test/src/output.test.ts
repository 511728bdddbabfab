import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bytesEta } from '../../src/output.js'

// The import bar's ETA follows the bytes left, at the rate the work moved bytes so far, not the files left.

const MB = 1024 * 1024

test('8 of 9 files done but 300 MB of 333.5 MB left: the ETA is that of the bytes, not of the one file', () => {
  // 30.7 MB uploaded in 3 s: about 10 MB/s, so 302.8 MB take about 30 s more
  const eta = bytesEta({ totalBytes: 333.5 * MB, doneBytes: 30.7 * MB, workedBytes: 30.7 * MB, seconds: 3 })
  assert.ok(Math.abs(eta - 302.8 / (30.7 / 3)) < 1e-9, String(eta))
  assert.ok(eta > 29)
})

test('bytes found already in the library took no time: left out of the rate, still counted as done', () => {
  // 100 MB skipped (already there), 10 MB uploaded in 1 s, 90 MB left: 9 s, not under a second
  assert.is(bytesEta({ totalBytes: 200 * MB, doneBytes: 110 * MB, workedBytes: 10 * MB, seconds: 1 }), 9)
})

test('nothing left is 0; no work done yet has no ETA', () => {
  assert.is(bytesEta({ totalBytes: 5 * MB, doneBytes: 5 * MB, workedBytes: 0, seconds: 2 }), 0)
  assert.ok(Number.isNaN(bytesEta({ totalBytes: 5 * MB, doneBytes: 1 * MB, workedBytes: 0, seconds: 2 })))
})

test.run()
