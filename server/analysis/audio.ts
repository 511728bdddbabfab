import { UnsupportedAudioError } from './audioErrors.js'
import { framesToMono, NeedBytes, wavLayout } from './wavLayout.js'

// Audio samples for analysis: a WAV file held whole (wavLayout.ts says which
// WAV files) mixed down to one channel of floats in [-1, 1]. FLAC and MP3 go
// through decode.ts, which calls this for WAV; audioSource.ts streams any of them.

export interface MonoAudio {
  samples: Float32Array
  sampleRate: number
}

export { UnsupportedAudioError }

export function decodeWav(buf: Buffer): MonoAudio {
  const layout = wavLayout(
    (at, length) => (at + length <= buf.length ? buf.subarray(at, at + length) : null),
    buf.length,
  )
  if (layout instanceof NeedBytes) throw new UnsupportedAudioError('the WAV file has no audio data')
  return {
    samples: framesToMono(layout, buf.subarray(layout.dataStart, layout.dataStart + layout.dataBytes)),
    sampleRate: layout.sampleRate,
  }
}
