import type { Readable } from 'node:stream'
import { AbstractTokenizer, EndOfStreamError, type IFileInfo, type IReadChunkOptions } from 'strtok3'

// Random access for the audio parser to bytes that are read by ranges (an upload kept in a bucket), so
// it seeks past the audio data as it does in a local file instead of reading all of it. The parser
// reads a few bytes at a time: each range request fetches a block, which serves the reads within it.

const BLOCK_BYTES = 256 * 1024

export class RangeTokenizer extends AbstractTokenizer {
  fileInfo: IFileInfo
  private block: { start: number; bytes: Buffer } | undefined

  /** `readRange(start, end)`: the bytes from `start` to `end` inclusive */
  constructor(
    private readonly size: number,
    private readonly readRange: (start: number, end: number) => Readable,
  ) {
    super()
    this.fileInfo = { size }
  }

  supportsRandomAccess(): boolean {
    return true
  }

  setPosition(position: number): void {
    this.validateLength(position, 'position')
    this.position = position
  }

  async readBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const o = this.normalizeOptions(buffer, options)
    const read = await this.peekBuffer(buffer, o)
    this.position = o.position + read
    return read
  }

  async peekBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const o = this.normalizeOptions(buffer, options)
    const wanted = Math.max(0, Math.min(this.size - o.position, o.length))
    if (!o.mayBeLess && wanted < o.length) throw new EndOfStreamError()
    for (let done = 0; done < wanted;) {
      const at = o.position + done
      const block = await this.blockAt(at)
      const from = at - block.start
      const n = Math.min(wanted - done, block.bytes.length - from)
      buffer.set(block.bytes.subarray(from, from + n), done)
      done += n
    }
    return wanted
  }

  private async blockAt(position: number): Promise<{ start: number; bytes: Buffer }> {
    const b = this.block
    if (b && position >= b.start && position < b.start + b.bytes.length) return b
    const chunks: Buffer[] = []
    for await (const c of this.readRange(position, Math.min(this.size, position + BLOCK_BYTES) - 1))
      chunks.push(c as Buffer)
    const bytes = Buffer.concat(chunks)
    if (!bytes.length) throw new EndOfStreamError()
    return (this.block = { start: position, bytes })
  }
}
