import * as Flags from '@oclif/core/flags'
import { confirm } from '@inquirer/prompts'
import type { ApiClient, Page } from './api.js'
import type { Query } from './query.js'
import { failure, usageError } from './exits.js'
import { filterCheck } from './listFilters.js'

// Destructive commands (deletes, revokes, deactivations) ask first on a terminal, saying what will go,
// and need --yes anywhere else: a script states its intent, a person is asked.

export const yesFlag = Flags.boolean({ char: 'y', description: 'do it without asking (needed when not on a terminal)' })

/** The header a mas server answers on OPTIONS with the methods the caller may use on the record, when asked with `*`
 * (docs/decisions.md §22). */
const PERMITTED_HEADER = 'mas-permitted-methods'

/** Refuses `verb` on `what` (e.g. "library 3 'Dawn chorus'") in one line, before anything is counted or asked, when
 * the server says the caller may not DELETE the record at `path`. Nothing is checked with `yes` (the DELETE itself
 * is refused then) nor against a server that does not tell (the original service): the question is asked there. */
export async function refuseIfNotPermitted(
  api: ApiClient,
  path: string,
  what: string,
  yes: boolean,
  verb = 'delete',
): Promise<void> {
  if (yes) return
  const answer = await api.request('OPTIONS', path, { headers: { [PERMITTED_HEADER]: '*' } })
  const told = answer.status < 300 ? answer.headers[PERMITTED_HEADER] : undefined
  if (typeof told !== 'string') return
  if (
    !told
      .split(',')
      .map((m) => m.trim())
      .includes('DELETE')
  )
    failure(`You may not ${verb} ${what}: the server refuses it to you. Nothing was changed`)
}

/** Asks `question` (e.g. "delete library 3 'Dawn chorus' with 1,204 media files?") unless `yes`. */
export async function confirmDestructive(question: string, yes: boolean): Promise<void> {
  if (yes) return
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    usageError(`Not on a terminal, so nobody can confirm: ${question} Add --yes to do it`)
  const answer = await confirm({ message: question, default: false }, { output: process.stderr }).catch(() => false) // Ctrl-C at the prompt: nothing is done
  if (!answer) failure('Nothing was changed')
}

/** 1204 -> "1,204 media files", 1 -> "1 media file" */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}

/** How many records the list at `path` holds (its first page's count; the length of an unpaged list). A server
 * that ignored a filter of `query` (its first record does not match it) has them counted here. */
export async function recordCount(api: ApiClient, path: string, query: Query = {}): Promise<number> {
  const data = await api.get<Page<unknown> | unknown[]>(path, { page_size: 1, ...query })
  const first = Array.isArray(data) ? data : (data.results ?? [])
  const check = filterCheck(query)
  if (check.filters && first.length && !check.keep(first).length) return (await api.all(path, query)).length
  return Array.isArray(data) ? data.length : data.count
}
