import { SampleBuffer } from '../sampleBuffer.js'

// Windows of a model's length cut from a stream of samples every `hop` samples, in batches for one run of the model.
// The last window of a file is padded with silence when at least half of it holds the recording (or when the file
// is shorter than one window), as BirdNET's own analyzer pads its last chunk.

export interface WindowBatch {
  /** the windows laid one after another */
  samples: Float32Array
  /** the first sample of each window, counted from the file's start at the model's rate */
  starts: number[]
}

export class WindowCutter {
  readonly #held = new SampleBuffer()
  /** the first sample of the next window to cut */
  #next = 0
  #pending: number[] = []

  constructor(
    readonly size: number,
    readonly hop: number,
    readonly batch: number,
  ) {}

  /** the batches `samples` completes */
  push(samples: Float32Array): WindowBatch[] {
    // the samples before the first window still to be cut are no longer needed
    this.#held.append(samples, this.#pending.length ? this.#pending[0] : this.#next)
    const out: WindowBatch[] = []
    while (this.#next + this.size <= this.#held.end) {
      this.#pending.push(this.#next)
      this.#next += this.hop
      if (this.#pending.length === this.batch) out.push(this.#take())
    }
    return out
  }

  /** the last batch at the stream's end: the windows waiting, and a padded last window where it is due */
  end(): WindowBatch | null {
    const left = this.#held.end - this.#next
    if (left > 0 && (left * 2 >= this.size || this.#next === 0)) {
      this.#pending.push(this.#next)
      this.#next += this.hop
    }
    return this.#pending.length ? this.#take() : null
  }

  #take(): WindowBatch {
    const starts = this.#pending
    this.#pending = []
    const held = this.#held
    const samples = new Float32Array(starts.length * this.size)
    starts.forEach((s, i) => {
      const from = s - held.start
      samples.set(held.samples.subarray(from, Math.min(held.length, from + this.size)), i * this.size)
    })
    return { samples, starts }
  }
}
