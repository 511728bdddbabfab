import type { PffftModule } from '@echogarden/pffft-wasm/simd'

// Power spectra of real frames, by PFFFT compiled to WebAssembly with SIMD (@echogarden/pffft-wasm);
// docs/decisions.md §20 has what was measured against fft.js and the hand-written FFT it replaced.

export interface PowerSpectrum {
  readonly size: number
  /**
   * |X[k]|² / size of the Hann-windowed samples frame[at … at + size), written to out[k], for k in
   * [fromBin, toBin) (default: every k from 0 to size/2)
   */
  (frame: Float32Array, out: Float64Array, at?: number, fromBin?: number, toBin?: number): void
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
  const half = size / 2
  /** 1 / size, exact: size is a power of two */
  const scale = 1 / size
  // The Hann window 1/2 − cos(2πn/size)/2 applied after the transform, as X[k]/2 − (X[k−1] + X[k+1])/4
  // (docs/decisions.md §20): three bins for each bin wanted instead of a multiplication for every sample, and
  // the frame copied into the module's memory whole.
  // the transform's bin k (−1 ≤ k ≤ size/2 + 1) from its ordered real output [X0, X(size/2), re X1, im X1, …]:
  // X(−k) and X(size/2 + k) are the conjugates of X(k) and X(size/2 − k)
  const re = (heap: Float32Array, k: number): number =>
    k === 0
      ? heap[output]
      : k === half
        ? heap[output + 1]
        : k < 0
          ? re(heap, -k)
          : k > half
            ? re(heap, size - k)
            : heap[output + 2 * k]
  const im = (heap: Float32Array, k: number): number =>
    k === 0 || k === half ? 0 : k < 0 ? -im(heap, -k) : k > half ? -im(heap, size - k) : heap[output + 2 * k + 1]
  // bins 0, 1, size/2 − 1 and size/2, whose neighbours wrap around
  const edge = (heap: Float32Array, out: Float64Array, k: number) => {
    const r = 0.5 * re(heap, k) - 0.25 * (re(heap, k - 1) + re(heap, k + 1))
    const i = 0.5 * im(heap, k) - 0.25 * (im(heap, k - 1) + im(heap, k + 1))
    out[k] = (r * r + i * i) * scale
  }
  const f = (frame: Float32Array, out: Float64Array, at = 0, fromBin = 0, toBin = half + 1) => {
    const heap = m.HEAPF32 // looked up each time: the view is replaced if the module's memory grows
    heap.set(frame.subarray(at, at + size), input)
    m._pffft_transform_ordered(setup, input * 4, output * 4, work, FORWARD)
    const from = Math.max(0, fromBin),
      end = Math.min(half + 1, toBin)
    const inner0 = Math.max(from, 2),
      inner1 = Math.min(end, half - 1)
    for (let k = from; k < Math.min(end, inner0); k++) edge(heap, out, k)
    for (let k = inner0, o = output + 2 * inner0; k < inner1; k++, o += 2) {
      const r = 0.5 * heap[o] - 0.25 * (heap[o - 2] + heap[o + 2])
      const i = 0.5 * heap[o + 1] - 0.25 * (heap[o - 1] + heap[o + 3])
      out[k] = (r * r + i * i) * scale
    }
    for (let k = Math.max(from, inner1); k < end; k++) edge(heap, out, k)
  }
  return Object.assign(f, { size }) as PowerSpectrum
}
