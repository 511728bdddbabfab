// A stretch of a stream's samples that moves forward: each chunk is appended at its end, and what no later use
// needs is forgotten from its start. One buffer, grown (at least doubled) when a chunk does not fit, else reused,
// so memory is the longest stretch ever held, whatever the stream's length. Frames (spectra.ts, features.ts) and
// a model's windows (models/windows.ts) are cut from it.

export class SampleBuffer {
  /** the samples held, in [0, length) */
  samples = new Float32Array(0)
  /** the stream's index of samples[0] */
  start = 0
  length = 0

  /** the stream's index after the last sample held */
  get end(): number {
    return this.start + this.length
  }

  /** Forgets the samples before the stream's index `keepFrom` (none after the end), then appends `chunk`. */
  append(chunk: Float32Array, keepFrom: number): void {
    const drop = Math.min(this.length, Math.max(0, keepFrom - this.start))
    const needed = this.length - drop + chunk.length
    if (needed > this.samples.length) {
      const bigger = new Float32Array(Math.max(needed, 2 * this.samples.length))
      bigger.set(this.samples.subarray(drop, this.length))
      this.samples = bigger
    } else {
      this.samples.copyWithin(0, drop, this.length)
    }
    this.start += drop
    this.length -= drop
    this.samples.set(chunk, this.length)
    this.length += chunk.length
  }
}
