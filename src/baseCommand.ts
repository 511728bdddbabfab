import { Command } from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import { failure, usageError } from './exits.js'
import * as Flags from '@oclif/core/flags'
import type { Interfaces } from '@oclif/core'
import { ApiClient, ApiError, ConnectionError, DEFAULT_TIMEOUT_SECONDS, describeError, MAX_PAGE_SIZE } from './api.js'
import type { ListPath, ListRecord } from './apiPaths.js'
import type { Table } from './columns.js'
import { listOutput, type ListFlags } from './listOutput.js'
import { loadNames, Names, type NameScope, type NameSource } from './names.js'
import { NameMemory } from './nameMemory.js'
import { bodyWithFlagNames, namedArgs, parseErrorLine } from './refusals.js'
import { stderr, table, type Column } from './output.js'
import { DEFAULT_PROFILE, readProfile, type Profile } from './profiles.js'

// BaseCommand: the --profile flag, the server to talk to, --json, and errors as one
// line on stderr with exit codes 0 ok, 1 failure, 2 usage. AuthCommand adds the token
// and an API client.

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export const DEFAULT_SERVER = 'http://127.0.0.1:8000'

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static enableJsonFlag = true
  static baseFlags = {
    profile: Flags.string({
      description: 'profile to use (several servers or accounts)',
      env: 'MAS_PROFILE',
      default: DEFAULT_PROFILE,
      helpGroup: 'GLOBAL',
    }),
    timeout: Flags.integer({
      description: `seconds to wait for each answer of the server before trying again or giving up (uploads wait longer, by their size) [default: ${DEFAULT_TIMEOUT_SECONDS}]`,
      env: 'MAS_TIMEOUT',
      min: 1,
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: CommandFlags<T>
  protected args!: CommandArgs<T>
  /** every argument, in order: those of a command taking any number (`static strict = false`) */
  protected positionals: string[] = []
  protected profile?: Profile

  async init(): Promise<void> {
    await super.init()
    const { args, argv, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: namedArgs(this.ctor.args),
      strict: this.ctor.strict,
    }).catch((err) => usageError(parseErrorLine(err))) // anything the parser refuses is a usage error
    this.flags = flags as CommandFlags<T>
    this.args = args as CommandArgs<T>
    this.positionals = argv as string[]
    this.profile = await readProfile(this.config.configDir, this.flags.profile)
  }

  /** MAS_SERVER, else the profile's server, else the local default. */
  get server(): string {
    return process.env.MAS_SERVER || this.profile?.server || DEFAULT_SERVER
  }

  protected client(token?: string, server = this.server): ApiClient {
    const timeout = (this.flags as { timeout?: number }).timeout ?? DEFAULT_TIMEOUT_SECONDS
    return new ApiClient({ server, token, userAgent: this.config.userAgent, timeoutMs: timeout * 1000 })
  }

  /** A table of records on stdout (silent under --json, where the records are the result). */
  protected showTable<R>(rows: readonly R[], columns: readonly Column<R>[]): void {
    this.log(table(rows, columns))
  }

  /** A list of records, the one way every list command prints them (flags of src/listOutput.ts):
   * prints the table or CSV (not under --json) and returns the records shown, the --json result.
   * A `Table` (src/columns.ts) shows names for ids, read from the API only when a table is printed. */
  protected async showList<R>(
    rows: readonly R[],
    columns: readonly Column<R>[] | Table,
    scope: NameScope = {},
    all = rows.length,
  ): Promise<R[]> {
    if (!Array.isArray(columns)) {
      const table = columns as Table
      const names = this.jsonEnabled() || !table.kinds.length ? Names.none : await this.names(table.kinds, scope)
      columns = table.columns(names) as unknown as Column<R>[]
    }
    const output = listOutput(this.flags as ListFlags, this.jsonEnabled())
    const shown = output.records(rows, columns)
    if (this.jsonEnabled()) return shown
    const { text, more } = output.text(shown, columns, all)
    if (text) this.log(text)
    if (more) stderr(more)
    return shown
  }

  /** Names for ids of these kinds (none without a login; see AuthCommand). */
  protected async names(_kinds: readonly NameSource[], _scope: NameScope): Promise<Names> {
    return Names.none
  }

  async catch(err: Error & { exitCode?: number }): Promise<never> {
    if (err instanceof Errors.ExitError) throw err
    const exit = exitCodeOf(err)
    const message =
      err instanceof ApiError && err.status === 400
        ? describeError(400, bodyWithFlagNames(err.body, this.ctor))
        : messageOf(err)
    if (process.env.DEBUG && err?.stack) process.stderr.write(`${err.stack}\n`)
    process.stderr.write(`Error: ${message}\n`)
    if (this.jsonEnabled()) {
      this.logJson({
        error: { message, exit, ...(err instanceof ApiError ? { status: err.status, body: err.body } : {}) },
      })
    }
    this.exit(exit)
  }
}

export abstract class AuthCommand<T extends typeof Command> extends BaseCommand<T> {
  /** Does the command look names up through names remembered by earlier commands (src/nameMemory.ts)? */
  static remembersNames = false
  protected api!: ApiClient
  /** the token the command's requests carry: MAS_TOKEN, else the profile's */
  protected token!: string

  async init(): Promise<void> {
    await super.init()
    const token = process.env.MAS_TOKEN || this.profile?.token
    if (!token) {
      failure(
        `Not logged in${this.flags.profile !== DEFAULT_PROFILE ? ` (profile "${this.flags.profile}")` : ''} to ${this.server}: run mas login`,
      )
    }
    this.token = token
    this.api = this.client(token)
    if ((this.ctor as typeof AuthCommand).remembersNames) {
      this.api.memory = await NameMemory.open(this.config.cacheDir, this.api.server, this.flags.profile, token)
    }
  }

  /** `work`, which looks names up and then acts on them; when the server refuses the version the remembered
   * names were learned at (412: one of them was renamed or deleted since), it is done again with every name
   * looked up afresh. What it learned is remembered once it succeeds. */
  protected async withRememberedNames<R>(work: () => Promise<R>): Promise<R> {
    const memory = this.api.memory
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await work()
        await memory?.save()
        return result
      } catch (err) {
        if (!memory || !(err instanceof ApiError && err.status === 412) || attempt >= 3) throw err
        memory.forget()
      }
    }
  }

  protected async names(kinds: readonly NameSource[], scope: NameScope): Promise<Names> {
    return loadNames(this.api, kinds, scope)
  }

  /** The list at `path` shown in the server's order (showList), read only as far as the output shows it. */
  protected async showListed<P extends ListPath>(
    path: P,
    columns: readonly Column<ListRecord<P>>[] | Table,
    scope: NameScope = {},
  ): Promise<ListRecord<P>[]> {
    const { rows, all } = await this.listedRecords(path)
    return this.showList(rows, columns, scope, all)
  }

  /** The records of a list command that shows them in the server's order, and how many the list holds: only its
   * first pages when the output shows no more (--limit, or a screenful on a terminal, without --sort), so that
   * `mas tag list` of 10^6 tags on a terminal reads 50 of them; every record otherwise. */
  private async listedRecords<P extends ListPath>(path: P): Promise<{ rows: ListRecord<P>[]; all: number }> {
    const wanted = listOutput(this.flags as ListFlags, this.jsonEnabled()).wanted
    if (wanted === undefined) {
      const rows = await this.api.all(path)
      return { rows, all: rows.length }
    }
    const rows: ListRecord<P>[] = []
    let all = 0
    const pageSize = String(Math.min(wanted, MAX_PAGE_SIZE))
    for await (const page of this.api.pages(path, { page_size: pageSize }, (count) => (all = count))) {
      rows.push(...page)
      if (rows.length >= wanted) break
    }
    return { rows: rows.slice(0, wanted), all: Math.max(all, rows.length) }
  }
}

function exitCodeOf(err: Error & { oclif?: { exit?: unknown } }): number {
  if (err instanceof ApiError || err instanceof ConnectionError) return 1
  const exit = err?.oclif?.exit
  return typeof exit === 'number' ? exit : 1
}

function messageOf(err: Error): string {
  if (err instanceof ApiError || err instanceof ConnectionError) return err.message
  const message = typeof err?.message === 'string' && err.message ? err.message : String(err)
  return message.replace(/\n+See more help with --help$/, ' (see --help)')
}
