import { createWriteStream, mkdirSync, openSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { failure } from './exits.js'

// The file an export writes with -o, in place of standard output (`mas tag export --format birdnet -o table.csv`). It
// is written under a name of its own beside the target and renamed onto it once whole, so an export that fails or is
// interrupted leaves no half-written file where a reader (or the last good export) expects one.

/** Where an export's text goes: standard output (writeStdout, src/output.ts) or an OutputFile's `write`. */
export type Write = (text: string | Uint8Array) => Promise<void>

export interface OutputFile {
  readonly write: Write
  /** the file is whole: it takes the target's name */
  done(): Promise<void>
  /** the export failed: nothing is left of it */
  abandon(): void
}

/** The file `path` (new, or replaced when the export is whole), its folder made where it is missing (as `-o` of
 * `mas eval` and `mas report` makes it); a one-line failure when it cannot be written there. */
export function outputFile(path: string): OutputFile {
  if (isFolder(path)) failure(`-o ${path}: it is a folder; give the name of the file to write`)
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`)
  let fd: number
  try {
    mkdirSync(dirname(path), { recursive: true })
    fd = openSync(partial, 'w')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a part of its path is a file, not a folder' : code
    failure(`-o ${path}: cannot write there (${why ?? (e as Error).message})`)
  }
  const stream: WriteStream = createWriteStream(partial, { fd })
  let failed: Error | undefined
  stream.on('error', (e) => (failed = e))
  // interrupted (Ctrl-C ends the process from the progress bar), the partial file goes with it
  const leftBehind = () => rmSync(partial, { force: true })
  process.on('exit', leftBehind)
  const finished = () => process.off('exit', leftBehind)
  return {
    write: (text) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed)
        if (!text.length) return resolve()
        stream.write(text, (err) => (err ? reject(err) : resolve()))
      }),
    async done() {
      await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())))
      if (failed) throw failed
      renameSync(partial, path)
      finished()
    },
    abandon() {
      // the stream closes its file (an fd closed here as well could by then be another file's); the exit hook
      // removes the partial file should the process end before that
      stream.once('close', () => {
        leftBehind()
        finished()
      })
      stream.destroy()
    },
  }
}

/** whether `path` is a folder; a path that cannot be a file's (under a file, say) is left for the write to refuse */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false
  } catch {
    return false
  }
}
