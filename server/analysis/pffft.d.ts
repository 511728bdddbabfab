// The parts of @echogarden/pffft-wasm (an Emscripten build of PFFFT, without types of its own) that fft.ts uses.
declare module '@echogarden/pffft-wasm/simd' {
  export interface PffftModule {
    HEAPF32: Float32Array
    _pffft_new_setup(size: number, kind: number): number
    _pffft_aligned_malloc(bytes: number): number
    _pffft_transform_ordered(setup: number, input: number, output: number, work: number, direction: number): void
  }
  const load: () => Promise<PffftModule>
  export default load
}
