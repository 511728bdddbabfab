import { closeSync, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { temporaryFolder, type TemporaryFolder } from './temporaryFolder.js'
import { Utf8Chunks } from './utf8Chunks.js'

// Text kept on disk by an export that needs all of its tags before its first line (a header naming every annotation
// column, a document listing its vocabulary first): what follows that line, made as the tags come, in a temporary
// file, so the export's memory does not grow with the tag set and the tags are read once (a second download could
// see tags added meanwhile, whose columns the header would lack). The file goes when the spool is closed.
//
// Each piece of text is encoded into one buffer, reused, written to the file whenever it is full (src/utf8Chunks.ts):
// written where the page cache takes it, a megabyte is written in well under a millisecond.

/** the bytes read back at once (each piece is awaited by its writer) */
const READ_CHUNK = 1 << 20

export class Spool {
  private fd: number | undefined
  private readonly text = new Utf8Chunks((bytes) => this.writeOut(bytes), true)
  private written = 0

  /** `folder` goes also when the process ends first (an interrupted export) */
  private constructor(
    private readonly folder: TemporaryFolder,
    private readonly path: string,
  ) {
    this.fd = openSync(path, 'w')
  }

  static open(): Spool {
    const folder = temporaryFolder('mas-export-')
    return new Spool(folder, join(folder.path, 'spool.txt'))
  }

  /** Keeps `text` as it is, after what was kept before. A write that fails (a full disk) throws here. */
  append(text: string): void {
    this.text.append(text)
  }

  /** The bytes kept so far. */
  get length(): number {
    return this.written + this.text.pending
  }

  /** What was kept, as the bytes of its text (UTF-8) from byte `start` to before `end` (else to the last), a piece
   * at a time. */
  async *bytes(start = 0, end?: number): AsyncGenerator<Buffer> {
    this.text.flush()
    const stop = Math.min(end ?? this.written, this.written)
    if (start >= stop) return
    // read at once, as the file was written: the page cache holds what was just written, and a read handed to the
    // thread pool and awaited left an AOEF export of 10^6 tags idle a sixth of its time (BENCHMARKS.md)
    const fd = openSync(this.path, 'r')
    try {
      for (let at = start; at < stop;) {
        const piece = Buffer.allocUnsafe(Math.min(READ_CHUNK, stop - at))
        const read = readSync(fd, piece, 0, piece.length, at)
        if (read === 0) throw new Error(`the spool ${this.path} ended at byte ${at} of ${stop}`)
        at += read
        yield read < piece.length ? piece.subarray(0, read) : piece
      }
    } finally {
      closeSync(fd)
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    this.folder.remove()
  }

  private writeOut(bytes: Buffer): void {
    if (this.fd === undefined) throw new Error('the spool is closed')
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at)
    this.written += bytes.length
  }
}
