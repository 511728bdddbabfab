import { once } from 'node:events'
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { ndjsonBatches } from './ndjson.js'
import { temporaryFolder, type TemporaryFolder } from './temporaryFolder.js'

// Records kept on disk between the readings of an export that needs all of them before its first line (a header
// naming every annotation column, a document listing its vocabulary first): a JSON line each in a temporary file, so
// the export's memory does not grow with the tag set, and every reading sees the same records (a second download
// could see tags added meanwhile, whose columns the header would lack). The file goes when the spool is closed.

const BATCH = 1000

export class Spool<T> {
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

  static open<T>(): Spool<T> {
    const folder = temporaryFolder('mas-export-')
    return new Spool<T>(folder, join(folder.path, 'records.ndjson'))
  }

  /** Keeps `records`, after those kept before; `lines`, their JSON lines as they came, are kept as they are. */
  async add(records: readonly T[], lines?: string): Promise<void> {
    if (!records.length) return
    let text = lines ?? ''
    if (lines === undefined) for (const r of records) text += JSON.stringify(r) + '\n'
    await this.addText(text)
  }

  /** Keeps `text` as it is, after what was kept before (read back by `bytes`, or by `batches` when it is JSON lines). */
  async addText(text: string): Promise<void> {
    if (this.failed) throw this.failed
    if (text && !this.out.write(text)) await drainedOrClosed(this.out)
  }

  /** Every record kept, in order, a batch at a time; the first reading ends the writing. */
  async *batches(): AsyncGenerator<T[]> {
    await this.written()
    yield* ndjsonBatches<T>(createReadStream(this.path), BATCH)
  }

  /** Everything kept, the bytes of the text it was given (UTF-8), a piece at a time; the first reading ends the writing. */
  async *bytes(): AsyncGenerator<Buffer> {
    await this.written()
    yield* createReadStream(this.path) as AsyncIterable<Buffer>
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
