import { createReadStream, openSync, closeSync, writeSync, ftruncateSync, rmSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { pcmWavHeader, recordingWav } from '../../../bench/longRecording.js'
import { openAudio } from '../../../server/analysis/audioSource.js'
import { readFacts } from '../../../server/media/facts.js'
import { LocalStorage } from '../../../server/storage/local.js'
import type { Pending } from '../../../server/storage/storage.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { CountingStorage } from '../../helpers/countingStorage.js'
import { makeLibrary } from '../../helpers/records.js'
import { tempDir } from '../../helpers/tempDir.js'
import { importMedia } from '../../helpers/upload.js'

// RF64 WAV files, as recorders write them past 4 GiB (a `ds64` chunk holds the 64-bit sizes; the RIFF and
// data sizes read 0xFFFFFFFF): imported with their facts, and read by ranges. RF64 is valid at any size, so
// one test uploads a small one; another writes a sparse file of 4.5 GiB (no disk used for its zeros).

const t = suiteApp(test)
let alice: TestUser
let library: number
const meta = (record: { mediafilemetadata_set: Array<{ name: string; value: string }> }) =>
  Object.fromEntries(record.mediafilemetadata_set.map((m) => [m.name, m.value]))

test.before(async () => {
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice)
})

test('an uploaded RF64 WAV: its facts from ds64, and its spectrogram', async () => {
  const wav = Buffer.concat([...recordingWav(90 * 22050, { sampleRate: 22050, seed: 3, rf64: true })])
  assert.is(wav.toString('latin1', 0, 4), 'RF64')
  const res = await importMedia(t, alice, library, wav, { filename: 'long.wav' })
  assert.is(res.statusCode, 201, res.body)
  assert.equal(meta(res.data), {
    fileSize: String(wav.length),
    durationInSeconds: '90.0',
    sampleRate: '22050',
    numChannels: '1',
    bitsPerSample: '16',
  })
  const s = await t.call('GET', `/api/v0/mediaFile/${res.data.id}/spectra/?startTime=80&endTime=81`, { as: alice })
  assert.is(s.statusCode, 200, s.body)
  assert.is(s.data.numFrames, 100)
})

test('a 4.5 GiB RF64 WAV: its facts, and a minute from its end read by one range', async () => {
  const root = tempDir('mas-rf64-')
  try {
    const storage = new CountingStorage(new LocalStorage(root))
    const name = 'media/day.wav'
    const path = (storage.inner as LocalStorage).pathOf(name)
    const dataBytes = 4.5 * 2 ** 30
    const header = pcmWavHeader({ sampleRate: 48000, channels: 1, bitsPerSample: 16, dataBytes })
    await (storage.inner as LocalStorage)
      .receive(
        (async function* () {
          yield header
        })(),
      )
      .then((p) => p.commit(name))
    const fd = openSync(path, 'r+')
    try {
      ftruncateSync(fd, header.length + dataBytes)
      writeSync(fd, Buffer.from(Int16Array.of(1000, -1000).buffer), 0, 4, header.length + dataBytes - 4)
    } finally {
      closeSync(fd)
    }
    const pending: Pending = {
      size: header.length + dataBytes,
      md5: '',
      localPath: path,
      read: () => createReadStream(path),
      commit: async () => {},
      discard: async () => {},
    }
    const facts = await readFacts(pending)
    assert.equal(
      [facts.ext, facts.sampleRate, facts.numChannels, facts.bitsPerSample, facts.durationInSeconds],
      ['wav', 48000, 1, 16, dataBytes / 2 / 48000],
    )

    const source = await openAudio(storage, name)
    assert.equal([source.info.frames, source.info.sampleRate], [dataBytes / 2, 48000])
    storage.reset()
    const last: Float32Array[] = []
    for await (const c of source.chunks({ from: source.info.frames - 60 * 48000 })) last.push(c.samples)
    assert.is(storage.bytesRead, 60 * 48000 * 2)
    assert.equal(storage.reads, [
      { start: header.length + dataBytes - 60 * 48000 * 2, end: header.length + dataBytes - 1 },
    ])
    const tail = last[last.length - 1]
    assert.equal([tail[tail.length - 2], tail[tail.length - 1]], [1000 / 32768, -1000 / 32768].map(Math.fround))
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
