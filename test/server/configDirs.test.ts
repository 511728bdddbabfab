import { join, resolve } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { configFromEnv } from '../../server/config.js'

// The data and media folders: --data-dir, else MAS_DATA_DIR, else ./.mas; media below the data folder unless
// MAS_MEDIA_DIR says otherwise. A variable set but blank (MAS_DATA_DIR= in a script) is not given: it would
// otherwise name the current folder and put the database there.

test('the defaults, and a blank MAS_DATA_DIR or MAS_MEDIA_DIR or --data-dir taken as not given', () => {
  const plain = configFromEnv({})
  assert.equal([plain.dataDir, plain.mediaDir], [resolve('.mas'), resolve('.mas', 'media')])
  for (const blank of [
    configFromEnv({ MAS_DATA_DIR: '', MAS_MEDIA_DIR: '' }),
    configFromEnv({}, { dataDir: '' }),
    configFromEnv({ MAS_DATA_DIR: '' }, { dataDir: '', mediaDir: '' }),
  ])
    assert.equal([blank.dataDir, blank.mediaDir], [plain.dataDir, plain.mediaDir])
})

test('what is given is taken: the flag before the variable, the media folder apart', () => {
  assert.is(configFromEnv({ MAS_DATA_DIR: '/srv/mas' }).dataDir, '/srv/mas')
  assert.is(configFromEnv({ MAS_DATA_DIR: '/srv/mas' }).mediaDir, join('/srv/mas', 'media'))
  assert.is(configFromEnv({ MAS_DATA_DIR: '/srv/mas' }, { dataDir: '/srv/other' }).dataDir, '/srv/other')
  assert.is(configFromEnv({ MAS_DATA_DIR: '/srv/mas', MAS_MEDIA_DIR: '/data/media' }).mediaDir, '/data/media')
})

test.run()
