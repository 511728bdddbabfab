// Text encoded to UTF-8 as it is made, into one buffer, passed on a buffer at a time. A page of an export joined
// into one string and then encoded cost more than making its rows: the string's pieces gathered, then encoded
// (BENCHMARKS.md); each piece written into the buffer where it ends costs a third of that.

/** the bytes encoded before they are passed on */
const SIZE = 1 << 20

export class Utf8Chunks {
  private buffer = Buffer.allocUnsafe(SIZE)
  private used = 0

  /** `pass` takes each full buffer's bytes; with `reuse` it is done with them when it returns (the buffer is written
   * over next), else they are its to keep. */
  constructor(
    private readonly pass: (bytes: Buffer) => void,
    private readonly reuse = false,
  ) {}

  append(text: string): void {
    // at most 3 bytes of UTF-8 for each UTF-16 unit
    if (this.used + 3 * text.length > this.buffer.length) {
      this.flush()
      if (3 * text.length > this.buffer.length) this.buffer = Buffer.allocUnsafe(3 * text.length)
    }
    this.used += this.buffer.write(text, this.used)
  }

  /** The bytes appended and not yet passed on. */
  get pending(): number {
    return this.used
  }

  /** Passes on what was appended since the last. */
  flush(): void {
    if (this.used === 0) return
    const bytes = this.buffer.subarray(0, this.used)
    this.used = 0
    if (!this.reuse || this.buffer.length > SIZE) this.buffer = Buffer.allocUnsafe(SIZE)
    this.pass(bytes)
  }
}

/** Text for a writer as it is made: encoded into buffers (Utf8Chunks), each handed to `write` by `drain`. */
export class TextWriter {
  private readonly filled: Buffer[] = []
  private readonly chunks = new Utf8Chunks((bytes) => this.filled.push(bytes))

  constructor(private readonly write: (bytes: Buffer) => Promise<void>) {}

  readonly append = (text: string): void => this.chunks.append(text)

  /** Writes the buffers filled so far, and with `all` what is appended since too. */
  async drain(all = false): Promise<void> {
    if (all) this.chunks.flush()
    for (let bytes = this.filled.shift(); bytes; bytes = this.filled.shift()) await this.write(bytes)
  }
}
