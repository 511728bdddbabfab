import type { PffftModule } from '@echogarden/pffft-wasm/simd'

// Power spectra of real frames, by PFFFT compiled to WebAssembly with SIMD (@echogarden/pffft-wasm);
// docs/decisions.md §20 has what was measured against fft.js and the hand-written FFT it replaced.

export interface PowerSpectrum {
  readonly size: number
  /**
   * |X[k]|² / size of the Hann-windowed samples frame[at … at + size), written to out[k], for k in
   * [fromBin, toBin) (default: every k from 0 to size/2)
   */
  (frame: Float32Array | Float64Array, out: Float64Array, at?: number, fromBin?: number, toBin?: number): void
}

const REAL = 0
const FORWARD = 0
let loaded: Promise<PffftModule> | null = null

/** A power spectrum of `size` samples (a power of two ≥ 32) with a Hann window. Each call shares one buffer: use one per thread. */
export async function powerSpectrum(size: number): Promise<PowerSpectrum> {
  loaded ??= import('@echogarden/pffft-wasm/simd').then((m) => m.default())
  const m = await loaded
  const setup = m._pffft_new_setup(size, REAL)
  if (!setup) throw new Error(`no FFT of size ${size}`)
  const input = m._pffft_aligned_malloc(size * 4) / 4
  const output = m._pffft_aligned_malloc(size * 4) / 4
  const work = m._pffft_aligned_malloc(size * 4)
  const window = new Float32Array(size)
  for (let i = 0; i < size; i++) window[i] = 0.5 - 0.5 * Math.cos(2 * Math.PI * i / size)
  const half = size / 2
  const f = (frame: Float32Array | Float64Array, out: Float64Array, at = 0, fromBin = 0, toBin = half + 1) => {
    const heap = m.HEAPF32 // looked up each time: the view is replaced if the module's memory grows
    for (let i = 0; i < size; i++) heap[input + i] = frame[at + i] * window[i]
    m._pffft_transform_ordered(setup, input * 4, output * 4, work, FORWARD)
    // ordered real output: [X0, X(size/2), re X1, im X1, re X2, im X2, …]
    if (fromBin === 0) out[0] = heap[output] * heap[output] / size
    if (toBin > half) out[half] = heap[output + 1] * heap[output + 1] / size
    for (let k = Math.max(1, fromBin), end = Math.min(half, toBin); k < end; k++) {
      const re = heap[output + 2 * k], im = heap[output + 2 * k + 1]
      out[k] = (re * re + im * im) / size
    }
  }
  return Object.assign(f, { size }) as PowerSpectrum
}
