import type { Interfaces } from '@oclif/core'
import { stripVTControlCharacters } from 'node:util'
import { CLIError } from '@oclif/core/errors'
import { closest } from './closest.js'

// Every refusal names the flag or argument to change (docs/architecture.md, "The command line"): what
// oclif's parser refuses, in one line, and the server's field errors (400) with each field said as the
// command's flag or argument that carries it.

type ArgDefinitions = Record<string, Interfaces.Arg<unknown>>

/** The command's arguments, each of whose refusals starts with its name as help shows it (`ID: Expected an
 * integer but received: abc`): oclif's own parse functions do not say which argument they were parsing. */
export function namedArgs<A extends ArgDefinitions>(args: A | undefined): A | undefined {
  if (!args) return args
  return Object.fromEntries(
    Object.entries(args).map(([name, arg]) => [
      name,
      {
        ...arg,
        parse: async (input: string, ctx: Parameters<typeof arg.parse>[1], opts: Parameters<typeof arg.parse>[2]) => {
          try {
            return await arg.parse(input, ctx, opts)
          } catch (err) {
            throw new Error(`${name.toUpperCase()}: ${err instanceof Error ? err.message : String(err)}`)
          }
        },
      },
    ]),
  ) as A
}

/** One line for a refusal of oclif's parser, naming the flag or argument. */
export function parseErrorLine(err: unknown): string {
  if (isNonExistentFlags(err)) return unknownFlagsLine(err)
  if (isMissingArgs(err)) {
    const missing = err.args.map((a) => `${a.name.toUpperCase()}${a.description ? `: ${a.description}` : ''}`)
    return `missing argument ${missing.join('; ')} (see --help)`
  }
  const message = stripVTControlCharacters(err instanceof Error ? err.message : String(err)).replace(
    /\n+See more help with --help$/,
    '',
  )
  const lines = message
    .replace(/^The following errors? occurred:\n/, '')
    .replace(/^Parsing (--[\w-]+) *\n\s*/, '$1: ')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => l.replace(/^Missing required flag ([\w-]+)$/, 'missing --$1'))
  return `${lines.join('; ')}${message.length < (err instanceof Error ? err.message.length : 0) ? ' (see --help)' : ''}`
}

type FlagDefinitions = Record<string, { hidden?: boolean; aliases?: string[] }>

/** Flags a command does not have, each with the nearest visible flag it has (--help among them), as a mistyped
 * command gets the nearest command (src/commandNotFound.ts): `Unknown flag --tagset: did you mean --tag-set?`. */
function unknownFlagsLine(err: NonExistentFlags): string {
  const flags: FlagDefinitions = { ...err.parse?.input?.flags, help: {} }
  // each visible flag by its name and its aliases (`--tagset` of perms), suggested by its name
  const nameOf = new Map(
    Object.entries(flags)
      .filter(([, f]) => !f.hidden)
      .flatMap(([name, f]) => [name, ...(f.aliases ?? [])].map((n) => [n, name])),
  )
  const described = err.flags.map((input) => {
    const typed = input.replace(/=.*$/s, '')
    const word = typed.replace(/^--/, '')
    // a few edits at most, fewer for a short word, so that a suggestion is a likely typo, not any flag
    const near = typed.startsWith('--')
      ? closest(word, [...nameOf.keys()], Math.min(3, Math.max(1, Math.floor(word.length / 2))))
      : undefined
    return { typed, near: near && nameOf.get(near) }
  })
  if (described.length === 1) {
    const [{ typed, near }] = described
    return `Unknown flag ${typed}: ${near ? `did you mean --${near}?` : 'see --help for the flags there are'}`
  }
  const each = described.map(({ typed, near }) => (near ? `${typed} (did you mean --${near}?)` : typed))
  return `Unknown flags ${each.join(', ')}: see --help for the flags there are`
}

/** oclif's NonExistentFlagsError (not exported by @oclif/core): the flags given that the command lacks, as typed,
 * and the parser's input, the flags it has. */
type NonExistentFlags = Error & { flags: string[]; parse?: { input?: { flags?: FlagDefinitions } } }
function isNonExistentFlags(err: unknown): err is NonExistentFlags {
  return (
    err instanceof Error &&
    /^Nonexistent flags?:/.test(err.message) &&
    Array.isArray((err as { flags?: unknown }).flags)
  )
}

/** A refusal of a flag the command lacks as one line (exit 2), for commands outside BaseCommand, whose errors
 * oclif itself prints (bin/run.js); other errors as they are. */
export function withUnknownFlagsLine(err: unknown): unknown {
  return isNonExistentFlags(err) ? new CLIError(unknownFlagsLine(err), { exit: 2 }) : err
}

/** oclif's RequiredArgsError (not exported by @oclif/core): the arguments missing, with their names. */
function isMissingArgs(err: unknown): err is Error & { args: Array<{ name: string; description?: string }> } {
  return (
    err instanceof Error &&
    /^Missing \d+ required args?\b/.test(err.message) &&
    Array.isArray((err as { args?: unknown }).args)
  )
}

/** Wire fields whose flag or argument is not their kebab-case name. */
const INPUT_OF_FIELD: Record<string, string> = {
  startTime: 'start',
  endTime: 'end',
  minFrequency: 'min-freq',
  maxFrequency: 'max-freq',
  usernames: 'user',
  users: 'user',
  parameters: 'param',
  jobType: 'type',
  username: 'name',
  realStartTime__gte: 'from',
  realStartTime__lte: 'to',
  alias__startswith: 'path',
  reviewed: 'reviewed-only',
}

interface CommandInputs {
  flags?: Record<string, unknown>
  args?: Record<string, unknown>
}

/** A 400's field errors with each field renamed to the flag (`--media-file`) or argument (`NAME`) of
 * `command` that carries it; other bodies as they are. */
export function bodyWithFlagNames(body: unknown, command: CommandInputs): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body
  const flags = command.flags ?? {}
  const args = command.args ?? {}
  const label = (field: string): string => {
    const input = INPUT_OF_FIELD[field] ?? field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
    if (input in flags) return `--${input}`
    if (input in args) return input.toUpperCase()
    return field
  }
  return Object.fromEntries(Object.entries(body).map(([field, errors]) => [label(field), errors]))
}
