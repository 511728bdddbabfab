import { once } from 'node:events'
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { temporaryFolder, type TemporaryFolder } from './temporaryFolder.js'

// Text kept on disk by an export that needs all of its tags before its first line (a header naming every annotation
// column, a document listing its vocabulary first): what follows that line, made as the tags come, in a temporary
// file, so the export's memory does not grow with the tag set and the tags are read once (a second download could
// see tags added meanwhile, whose columns the header would lack). The file goes when the spool is closed.

export class Spool {
  private readonly out: WriteStream

  /** `folder` goes also when the process ends first (an interrupted export) */
  private constructor(
    private readonly folder: TemporaryFolder,
    private readonly path: string,
  ) {
    this.out = createWriteStream(path)
    // a write that fails (a full disk) fails the export at its next step; after close, nothing is wanted of the file
    this.out.on('error', (err) => {
      this.failed ??= err
    })
  }

  private failed: Error | undefined

  static open(): Spool {
    const folder = temporaryFolder('mas-export-')
    return new Spool(folder, join(folder.path, 'spool.txt'))
  }

  /** Keeps `text` as it is, after what was kept before. */
  async addText(text: string): Promise<void> {
    if (this.failed) throw this.failed
    if (text && !this.out.write(text)) await drainedOrClosed(this.out)
  }

  /** What was kept, as the bytes of its text (UTF-8) from byte `start` to before `end` (else to the last), a piece
   * at a time; the first reading ends the writing. */
  async *bytes(start = 0, end?: number): AsyncGenerator<Buffer> {
    await this.written()
    if (end !== undefined && end <= start) return
    yield* createReadStream(this.path, { start, end: end === undefined ? undefined : end - 1 }) as AsyncIterable<Buffer>
  }

  /** Ends the writing (once), every byte on disk; the first write that failed, if one did. */
  private async written(): Promise<void> {
    if (!this.out.closed) {
      this.out.end()
      await once(this.out, 'close')
    }
    if (this.failed) throw this.failed
  }

  close(): void {
    this.out.destroy()
    this.folder.remove()
  }
}

/** Waits until `out` takes writes again or has closed; the wait that loses is called off, so that no listener is
 * left behind on the stream (one per full buffer: over a large export, Node's warning of a listener leak). */
async function drainedOrClosed(out: WriteStream): Promise<void> {
  const calledOff = new AbortController()
  try {
    await Promise.race([
      once(out, 'drain', { signal: calledOff.signal }),
      once(out, 'close', { signal: calledOff.signal }),
    ])
  } finally {
    calledOff.abort()
  }
}
