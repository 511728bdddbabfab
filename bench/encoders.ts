import { createRequire } from 'node:module'

// Compressed recordings for benchmarks, encoded as recorders' software does
// (not the verbatim FLAC of test/helpers/flac.ts, which decodes faster than
// real FLAC): libFLAC (libflacjs, its asm.js build: its WebAssembly one fetches its file, which Node's fetch refuses) and LAME
// (@breezystack/lamejs, the maintained fork of lamejs). Benchmarks only: the
// server never encodes audio.

interface LibFlac {
  isReady(): boolean
  on(event: 'ready', handler: () => void): void
  create_libflac_encoder(
    sampleRate: number,
    channels: number,
    bps: number,
    level: number,
    totalSamples?: number,
    verify?: boolean,
  ): number
  init_encoder_stream(encoder: number, write: (data: Uint8Array, bytes: number) => void): number
  FLAC__stream_encoder_process_interleaved(encoder: number, buffer: Int32Array, samples: number): boolean
  FLAC__stream_encoder_finish(encoder: number): boolean
  FLAC__stream_encoder_delete(encoder: number): void
}

async function libFlac(): Promise<LibFlac> {
  const flac = createRequire(import.meta.url)('libflacjs/dist/libflac.js') as LibFlac
  if (!flac.isReady()) await new Promise<void>((resolve) => flac.on('ready', resolve))
  return flac
}

/** Mono 16-bit samples as a FLAC file (compression level 5, libFLAC's default), as a stream of chunks. */
export async function* encodeFlac(
  blocks: Iterable<Int16Array>,
  o: { sampleRate: number; totalFrames: number },
): AsyncGenerator<Buffer> {
  const flac = await libFlac()
  const encoder = flac.create_libflac_encoder(o.sampleRate, 1, 16, 5, o.totalFrames, false)
  let out: Buffer[] = []
  if (
    flac.init_encoder_stream(encoder, (data, bytes) => {
      out.push(Buffer.from(data.subarray(0, bytes)))
    }) !== 0
  ) {
    throw new Error('the FLAC encoder could not start')
  }
  try {
    for (const b of blocks) {
      if (!flac.FLAC__stream_encoder_process_interleaved(encoder, Int32Array.from(b), b.length))
        throw new Error('the FLAC encoder failed')
      if (out.length) {
        yield Buffer.concat(out)
        out = []
      }
    }
    flac.FLAC__stream_encoder_finish(encoder)
    if (out.length) yield Buffer.concat(out)
  } finally {
    flac.FLAC__stream_encoder_delete(encoder)
  }
}

/** Mono 16-bit samples as a constant-bit-rate MP3 file, as a stream of chunks. */
export async function* encodeMp3(
  blocks: Iterable<Int16Array>,
  o: { sampleRate: number; kbps?: number },
): AsyncGenerator<Buffer> {
  const { Mp3Encoder } = await import('@breezystack/lamejs')
  const encoder = new Mp3Encoder(1, o.sampleRate, o.kbps ?? 128)
  for (const b of blocks) {
    const bytes = encoder.encodeBuffer(b)
    if (bytes.length) yield Buffer.from(bytes)
  }
  yield Buffer.from(encoder.flush())
}
