import { once } from 'node:events'
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { ndjsonBatches } from './ndjson.js'

// What an export keeps on disk between its readings, when it needs all of its tags before its first line (a header
// naming every annotation column, a document listing its vocabulary first), so that its memory does not grow with
// the tag set and every reading sees the same tags (a second download could see tags added meanwhile, whose columns
// the header would lack). A TextSpool keeps text as written (an AOEF document's items, ready to copy); a Spool keeps
// records, a JSON line each. The file goes when the spool is closed, or when the process ends first (an interrupted
// export).

const BATCH = 1000

export class TextSpool {
  private readonly out: WriteStream
  private readonly remove = () => rmSync(this.dir, { recursive: true, force: true })
  private failed: Error | undefined

  private constructor(
    private readonly dir: string,
    private readonly path: string,
  ) {
    this.out = createWriteStream(path)
    // a write that fails (a full disk) fails the export at its next step; after close, nothing is wanted of the file
    this.out.on('error', (err) => {
      this.failed ??= err
    })
    process.once('exit', this.remove)
  }

  static open(): TextSpool {
    const dir = mkdtempSync(join(tmpdir(), 'mas-export-'))
    return new TextSpool(dir, join(dir, 'spool'))
  }

  /** Keeps `text`, after what was kept before. */
  async write(text: string): Promise<void> {
    if (this.failed) throw this.failed
    if (!text) return
    if (!this.out.write(text)) await Promise.race([once(this.out, 'drain'), once(this.out, 'close')])
  }

  /** The bytes kept, in order; the first reading ends the writing. */
  async *bytes(): AsyncGenerator<Buffer> {
    if (!this.out.closed) {
      this.out.end()
      await once(this.out, 'close')
    }
    if (this.failed) throw this.failed
    yield* createReadStream(this.path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>
  }

  /** The text kept, in order, a piece at a time. */
  async *text(): AsyncGenerator<string> {
    const decoder = new StringDecoder('utf8')
    for await (const chunk of this.bytes()) yield decoder.write(chunk)
    const rest = decoder.end()
    if (rest) yield rest
  }

  close(): void {
    this.out.destroy()
    process.off('exit', this.remove)
    this.remove()
  }
}

export class Spool<T> {
  private constructor(private readonly file: TextSpool) {}

  static open<T>(): Spool<T> {
    return new Spool<T>(TextSpool.open())
  }

  /** Keeps `records`, after those kept before. */
  async add(records: readonly T[]): Promise<void> {
    let text = ''
    for (const r of records) text += JSON.stringify(r) + '\n'
    await this.file.write(text)
  }

  /** Every record kept, in order, a batch at a time; the first reading ends the writing. */
  batches(): AsyncGenerator<T[]> {
    return ndjsonBatches<T>(this.file.bytes(), BATCH)
  }

  close(): void {
    this.file.close()
  }
}
