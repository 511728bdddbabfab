import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { configFromEnv } from '../../../server/config.js'

// MAS_MAX_UPLOAD_BYTES: 16 GiB unless set, so that a day-long recording at 48 kHz (8.3 GB as 16-bit WAV)
// fits; 5 GiB with a bucket, whose copy to the stored name is one request of at most 5 GiB.

const GiB = 1024 ** 3

test('16 GiB by default, 5 GiB by default with a bucket, and what MAS_MAX_UPLOAD_BYTES says when set', () => {
  assert.is(configFromEnv({}).maxUploadBytes, 16 * GiB)
  assert.ok(configFromEnv({}).maxUploadBytes > 24 * 3600 * 48000 * 2, 'a day at 48 kHz fits')
  assert.is(configFromEnv({ MAS_STORAGE_URL: 's3://bucket/prefix' }).maxUploadBytes, 5 * GiB)
  assert.is(configFromEnv({ MAS_MAX_UPLOAD_BYTES: '1000' }).maxUploadBytes, 1000)
  assert.is(
    configFromEnv({ MAS_STORAGE_URL: 's3://bucket/prefix', MAS_MAX_UPLOAD_BYTES: String(20 * GiB) }).maxUploadBytes,
    20 * GiB,
  )
})

test.run()
