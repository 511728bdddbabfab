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
