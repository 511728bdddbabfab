import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { AppConfig } from '../../server/config.js'
import { cliWorld, json, type CliWorld } from '../cli/cli.js'
import { makeLibrary } from '../helpers/records.js'
import { signal, storedWav } from '../helpers/signals.js'

// mas media spectrogram: the server's spectra of a media file saved as a PNG.

let world: CliWorld

test.before(async () => { world = await cliWorld() })
test.after(async () => { await world.close() })

test('mas media spectrogram saves a PNG of the asked stretch; an unreadable id fails', async () => {
  const alice = await world.t.user('alice')
  assert.is((await world.login(alice)).code, 0)
  const config = (world.t.app as unknown as { config: AppConfig }).config
  const media = await storedWav(world.t.db, config, alice, await makeLibrary(world.t.db, alice),
    signal(3, 8000, [{ from: 1, to: 2, frequency: 1500 }]), 8000)
  const out = join(world.home, 'call.png')
  const run = await world.mas(['media', 'spectrogram', String(media), '--start', '0.5', '--end', '2.5', '-o', out, '--json'])
  assert.is(run.code, 0, run.stderr)
  assert.equal(json(run), { mediaFile: media, savedTo: out })
  const png = readFileSync(out)
  assert.is(png.toString('ascii', 1, 4), 'PNG')
  assert.equal([png.readUInt32BE(16), png.readUInt32BE(20)], [200, 256])
  const missing = await world.mas(['media', 'spectrogram', '999999', '-o', join(world.home, 'x.png')])
  assert.is(missing.code, 1)
  assert.not.ok(existsSync(join(world.home, 'x.png')))
})

test.run()
