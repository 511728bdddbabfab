import type { Interfaces } from '@oclif/core'
import { stripVTControlCharacters } from 'node:util'

// Every refusal names the flag or argument to change (docs/architecture.md, "The command line"): what
// oclif's parser refuses, in one line, and the server's field errors (400) with each field said as the
// command's flag or argument that carries it.

type ArgDefinitions = Record<string, Interfaces.Arg<unknown>>

/** The command's arguments, each of whose refusals starts with its name as help shows it (`ID: Expected an
 * integer but received: abc`): oclif's own parse functions do not say which argument they were parsing. */
export function namedArgs<A extends ArgDefinitions>(args: A | undefined): A | undefined {
  if (!args) return args
  return Object.fromEntries(Object.entries(args).map(([name, arg]) => [name, {
    ...arg,
    parse: async (input: string, ctx: Parameters<typeof arg.parse>[1], opts: Parameters<typeof arg.parse>[2]) => {
      try {
        return await arg.parse(input, ctx, opts)
      } catch (err) {
        throw new Error(`${name.toUpperCase()}: ${err instanceof Error ? err.message : String(err)}`)
      }
    },
  }])) as A
}

/** One line for a refusal of oclif's parser, naming the flag or argument. */
export function parseErrorLine(err: unknown): string {
  if (isMissingArgs(err)) {
    const missing = err.args.map((a) => `${a.name.toUpperCase()}${a.description ? `: ${a.description}` : ''}`)
    return `missing argument ${missing.join('; ')} (see --help)`
  }
  const message = stripVTControlCharacters(err instanceof Error ? err.message : String(err))
    .replace(/\n+See more help with --help$/, '')
  const lines = message
    .replace(/^The following errors? occurred:\n/, '')
    .replace(/^Parsing (--[\w-]+) *\n\s*/, '$1: ')
    .split('\n').map((l) => l.trim()).filter(Boolean)
    .map((l) => l.replace(/^Missing required flag ([\w-]+)$/, 'missing --$1'))
  return `${lines.join('; ')}${message.length < (err instanceof Error ? err.message.length : 0) ? ' (see --help)' : ''}`
}

/** oclif's RequiredArgsError (not exported by @oclif/core): the arguments missing, with their names. */
function isMissingArgs(err: unknown): err is Error & { args: Array<{ name: string; description?: string }> } {
  return err instanceof Error && /^Missing \d+ required args?\b/.test(err.message) && Array.isArray((err as { args?: unknown }).args)
}

/** Wire fields whose flag or argument is not their kebab-case name. */
const INPUT_OF_FIELD: Record<string, string> = {
  startTime: 'start', endTime: 'end', minFrequency: 'min-freq', maxFrequency: 'max-freq',
  usernames: 'user', users: 'user', parameters: 'param', jobType: 'type', username: 'name',
  realStartTime__gte: 'from', realStartTime__lte: 'to', alias__startswith: 'path',
}

interface CommandInputs { flags?: Record<string, unknown>; args?: Record<string, unknown> }

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
