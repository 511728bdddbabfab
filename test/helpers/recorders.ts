import { makeWav, type WavOptions } from './wav.js'

// WAV files as field recorders write them: the metadata chunks AudioMoth (a LIST/INFO comment),
// Wildlife Acoustics (`wamd`), GUANO (`guan`) and broadcast WAV (`bext`) put before the audio data,
// and a file cut short as a full card or a pulled battery leaves it.

/** A RIFF chunk: id, little-endian size, body, a pad byte after an odd body. */
export function riffChunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.write(id, 0, 'latin1')
  head.writeUInt32LE(body.length, 4)
  return Buffer.concat([head, body, Buffer.alloc(body.length % 2)])
}

/** A WAV file (makeWav's tone) with `chunks` placed between its `fmt ` and `data` chunks. */
export function wavWithChunks(chunks: Buffer[], options: WavOptions = {}): Buffer {
  const wav = makeWav(options)
  const fmt = wav.subarray(12, 36),
    data = wav.subarray(36)
  const body = Buffer.concat([Buffer.from('WAVE'), fmt, ...chunks, data])
  return riffChunk('RIFF', body)
}

/** AudioMoth: "Recorded at HH:MM:SS DD/MM/YYYY (UTC) by AudioMoth …" in a LIST/INFO ICMT chunk. */
export function audioMothWav(at: Date, options: WavOptions = {}): Buffer {
  const p = (n: number) => String(n).padStart(2, '0')
  const when = `${p(at.getUTCHours())}:${p(at.getUTCMinutes())}:${p(at.getUTCSeconds())} ${p(at.getUTCDate())}/${p(at.getUTCMonth() + 1)}/${at.getUTCFullYear()}`
  const comment = Buffer.from(
    `Recorded at ${when} (UTC) by AudioMoth 24A04F085FDF2793 at medium gain while battery was 4.2V and temperature was 11.5C.\0`,
    'latin1',
  )
  return wavWithChunks([riffChunk('LIST', Buffer.concat([Buffer.from('INFO'), riffChunk('ICMT', comment)]))], options)
}

/** Broadcast WAV: a `bext` chunk with origination date `YYYY-MM-DD` and time `hh:mm:ss`. */
export function bextWav(date: string, time: string, options: WavOptions = {}): Buffer {
  const bext = Buffer.alloc(602)
  bext.write('field recording', 0, 'ascii')
  bext.write(date, 320, 'ascii')
  bext.write(time, 330, 'ascii')
  return wavWithChunks([riffChunk('bext', bext)], options)
}

/** Wildlife Acoustics: a `wamd` chunk of (id u16, size u32, text) entries: model (1) and start time (5). */
export function wamdWav(start: string, options: WavOptions = {}): Buffer {
  const entry = (id: number, text: string) => {
    const value = Buffer.from(text, 'latin1')
    const head = Buffer.alloc(6)
    head.writeUInt16LE(id, 0)
    head.writeUInt32LE(value.length, 2)
    return Buffer.concat([head, value])
  }
  return wavWithChunks([riffChunk('wamd', Buffer.concat([entry(1, 'SM4BAT-FS'), entry(5, start)]))], options)
}

/** GUANO metadata in a `guan` chunk. */
export function guanoWav(timestamp: string, options: WavOptions = {}): Buffer {
  return wavWithChunks(
    [riffChunk('guan', Buffer.from(`GUANO|Version: 1.0\nMake: Titley Scientific\nTimestamp: ${timestamp}\n`, 'utf8'))],
    options,
  )
}

/** The first `fraction` of a file: its header promises more audio data than there is. */
export function truncated(file: Buffer, fraction = 0.5): Buffer {
  return file.subarray(0, Math.floor(file.length * fraction))
}
