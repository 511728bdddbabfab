import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import * as Errors from '@oclif/core/errors'

// How a command ends when it cannot do what was asked: a one-line message and the exit code, for the command
// classes and the modules they use alike.

/** A mistake in how the command was called: exit 2. */
export function usageError(message: string): never {
  throw new Errors.CLIError(message, { exit: 2 })
}

/** The command could not do its work: exit 1. */
export function failure(message: string): never {
  throw new Errors.CLIError(message, { exit: 1 })
}

/** A file named on the command line could not be read: exit 1, with the reason in words. */
export function unreadable(path: string, err: NodeJS.ErrnoException): never {
  failure(`FILE: cannot read ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)
}

/** Writes `data` to the file a flag names (`-o chart.png`), its folder made first where it is missing, as the exports'
 * folders are; a file that cannot be written ends the command with the reason in words, naming the flag. */
export async function writeNamedFile(flag: string, path: string, data: string | Uint8Array): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, data)
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (!err.code) throw e
    failure(`${flag} ${path}: cannot write it: ${err.code === 'EISDIR' ? 'it is a folder' : err.message}`)
  }
}
