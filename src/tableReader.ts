import { createReadStream, createWriteStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { StringDecoder } from 'node:string_decoder'
import { csvRecords } from './tagFormats.js'
import { temporaryFolder } from './temporaryFolder.js'

// Reading a table file a piece at a time (docs/decisions.md §32): its text decoded as its byte order mark says
// (UTF-8, with or without one, or UTF-16 little-endian, as Windows tools save "Unicode text"), cut into lines
// (CRLF or LF), and CSV or tab-separated records of them, a quoted field running over lines. Memory holds one
// read chunk and its records, whatever the file's length. Standard input is spooled to a temporary file first,
// so it can be read twice like any file.

/** The encoding of a file from its first bytes, and how many of them are its byte order mark. */
function encodingOf(head: Buffer): { encoding: 'utf8' | 'utf16le'; skip: number } {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf16le', skip: 2 }
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf8', skip: 3 }
  return { encoding: 'utf8', skip: 0 }
}

async function headBytes(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(bytes)
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

/** The decoded text of the file's first `bytes` bytes (enough to tell its format). */
export async function readHead(file: string, bytes = 16_384): Promise<string> {
  const head = await headBytes(file, bytes)
  const { encoding, skip } = encodingOf(head)
  return new StringDecoder(encoding).write(head.subarray(skip))
}

/** The whole decoded text of a file (formats read whole: JSON documents, Raven tables). */
export async function readText(file: string): Promise<string> {
  let text = ''
  for await (const lines of lineBatches(file)) text += lines.join('\n') + '\n'
  return text
}

/** The file's lines (without their line ends), a read chunk's worth at a time. */
export async function* lineBatches(file: string): AsyncGenerator<string[]> {
  const { encoding, skip } = encodingOf(await headBytes(file, 3))
  const decoder = new StringDecoder(encoding)
  let rest = ''
  for await (const chunk of createReadStream(file, {
    start: skip,
    highWaterMark: 64 * 1024,
  }) as AsyncIterable<Buffer>) {
    const text = rest + decoder.write(chunk)
    const lines = text.split('\n')
    rest = lines.pop() ?? ''
    for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1)
    if (lines.length) yield lines
  }
  const last = (rest + decoder.end()).replace(/\r$/, '')
  if (last !== '') yield [last]
}

export interface TableRecord {
  line: number
  fields: string[]
}

const quotes = (s: string) => {
  let n = 0
  for (let i = s.indexOf('"'); i >= 0; i = s.indexOf('"', i + 1)) n++
  return n
}

/** The records of a CSV (or, with `\t`, tab-separated) file, a chunk at a time, each with the line it starts on;
 * blank lines are left out. */
export async function* recordBatches(file: string, separator: string): AsyncGenerator<TableRecord[]> {
  let line = 0
  let open = ''
  let openLine = 0
  for await (const lines of lineBatches(file)) {
    const out: TableRecord[] = []
    for (const text of lines) {
      line++
      if (open !== '') {
        open += `\n${text}`
        if (quotes(open) % 2 === 1) continue
        out.push({ line: openLine, fields: csvRecords(open, separator)[0]?.fields ?? [] })
        open = ''
        continue
      }
      if (text.trim() === '') continue
      if (!text.includes('"')) {
        out.push({ line, fields: text.split(separator) })
        continue
      }
      if (quotes(text) % 2 === 1) {
        open = text
        openLine = line
        continue
      }
      out.push({ line, fields: csvRecords(text, separator)[0]?.fields ?? [] })
    }
    if (out.length) yield out
  }
  if (open !== '') yield [{ line: openLine, fields: csvRecords(open, separator)[0]?.fields ?? [] }]
}

/** Standard input in a temporary file (read twice as any file); `done` removes it, as does the process's exit
 * (an import interrupted with Ctrl-C exits at once, and must not leave a copy of the table behind). */
export async function spoolStdin(): Promise<{ file: string; done: () => Promise<void> }> {
  const folder = temporaryFolder('mas-import-')
  const file = join(folder.path, 'stdin')
  await pipeline(process.stdin, createWriteStream(file))
  return { file, done: async () => folder.remove() }
}
