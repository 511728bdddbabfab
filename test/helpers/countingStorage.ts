import { Transform, type Readable } from 'node:stream'
import type { ByteRange, Pending, ReadOptions, Storage, StoredFileInfo } from '../../server/storage/storage.js'

/** A real storage whose reads are counted: how many bytes left it, and by which ranges. */
export class CountingStorage implements Storage {
  bytesRead = 0
  reads: Array<ByteRange | null> = []

  constructor(readonly inner: Storage) {}

  reset(): void {
    this.bytesRead = 0
    this.reads = []
  }

  read(name: string, range?: ByteRange, options?: ReadOptions): Readable {
    this.reads.push(range ?? null)
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.bytesRead += chunk.length
        done(null, chunk)
      },
    })
    const source = this.inner.read(name, range, options)
    source.on('error', (e) => counter.destroy(e))
    counter.on('close', () => source.destroy())
    return source.pipe(counter)
  }

  receive(source: Readable | AsyncIterable<Buffer>): Promise<Pending> {
    return this.inner.receive(source)
  }
  stat(name: string): Promise<StoredFileInfo | null> {
    return this.inner.stat(name)
  }
  remove(name: string): Promise<void> {
    return this.inner.remove(name)
  }
  list(folder: string): Promise<string[]> {
    return this.inner.list(folder)
  }
  sweepIncoming(maxAgeMs: number): Promise<number> {
    return this.inner.sweepIncoming(maxAgeMs)
  }
}
