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
  #buffer: Float32Array
  #held = 0
  /** the stream's sample at #buffer[0] */
  #offset = 0
  #next = 0
  #pending: number[] = []

  constructor(readonly size: number, readonly hop: number, readonly batch: number) {
    this.#buffer = new Float32Array(size * 2)
  }

  /** the batches `samples` completes */
  push(samples: Float32Array): WindowBatch[] {
    this.#append(samples)
    const out: WindowBatch[] = []
    while (this.#next + this.size <= this.#offset + this.#held) {
      this.#pending.push(this.#next)
      this.#next += this.hop
      if (this.#pending.length === this.batch) out.push(this.#take())
    }
    this.#drop()
    return out
  }

  /** the last batch at the stream's end: the windows waiting, and a padded last window where it is due */
  end(): WindowBatch | null {
    const end = this.#offset + this.#held
    const left = end - this.#next
    if (left > 0 && (left * 2 >= this.size || this.#next === 0)) {
      this.#pending.push(this.#next)
      this.#next += this.hop
    }
    return this.#pending.length ? this.#take() : null
  }

  #take(): WindowBatch {
    const starts = this.#pending
    this.#pending = []
    const samples = new Float32Array(starts.length * this.size)
    starts.forEach((s, i) => {
      const from = s - this.#offset
      const part = this.#buffer.subarray(from, Math.min(this.#held, from + this.size))
      samples.set(part, i * this.size)
    })
    return { samples, starts }
  }

  #append(samples: Float32Array): void {
    if (this.#held + samples.length > this.#buffer.length) {
      const grown = new Float32Array(Math.max(this.#buffer.length * 2, this.#held + samples.length))
      grown.set(this.#buffer.subarray(0, this.#held))
      this.#buffer = grown
    }
    this.#buffer.set(samples, this.#held)
    this.#held += samples.length
  }

  /** forgets the samples before the first window still to be cut */
  #drop(): void {
    const keep = Math.min(this.#pending.length ? this.#pending[0] : this.#next, this.#offset + this.#held) - this.#offset
    if (keep <= 0) return
    this.#buffer.copyWithin(0, keep, this.#held)
    this.#held -= keep
    this.#offset += keep
  }
}
