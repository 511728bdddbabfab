import { ApiError, errorDetail, mapLimit, type ApiClient } from './api.js'
import { COLUMNS_TYPE, columnBody } from './columnBody.js'
import { failure } from './exits.js'
import { Progress } from './output.js'
import { TagImportMemory } from './tagImportMemory.js'
import type { ParsedTags } from './tagFormats.js'
import type { Tag } from './records.js'

// Sending validated tags to POST tag/: in batches (each all-or-nothing on the server, a mas extension; column-wise,
// src/columnBody.ts, or as arrays to a server that does not read that), or, where the server takes one tag a request
// (the original service answers an array with 400 "Expected a dictionary"), one by one, several at once. Either way the records come
// back in input order, and what is created is remembered (src/tagImportMemory.ts) until the
// import is done, so a re-run after an interruption or a refused row creates only the rest. With
// `skipDuplicates`, the server is asked not to create rows identical to tags already in the tag set
// (`?onDuplicate=skip`, docs/decisions.md §9), so a re-run of a finished import, on any machine, creates nothing.

export interface SendOptions {
  tagSet: number
  batchSize: number
  concurrency: number
  memory: TagImportMemory
  skipDuplicates: boolean
  /** keep each created record as the server answered it (for --json); otherwise `{id}` alone, so the memory an
   * import holds is its input's, not also a parsed record of every tag created */
  wholeRecords: boolean
  /** where these tags are in a larger import sent a part at a time: the tags of the parts before, all of them (the
   * progress shows the whole import), and how many the parts before created (said when this part fails) */
  part?: { before: number; total: number; created: number }
  /** what the server was found to take, by the parts before (one import's parts share it) */
  server: BulkServer
  /** the import's progress bar, which its parts share */
  progress: ImportProgress
}

/** The one progress bar of an import sent a part at a time, shared by its parts (a bar each would leave a line of
 * its own on the terminal per 10,000 tags): Ctrl-C is answered by the part under way, which waits for its requests
 * and remembers what they created. */
export class ImportProgress {
  readonly bar: Progress
  private part: PartInterrupt | undefined

  constructor(total: number, quiet: boolean) {
    this.bar = new Progress(total, {
      unit: 'tags',
      quiet,
      settle: async () => this.part?.settle(),
      interrupted: (done, all) => this.part?.interrupted(done, all) ?? interruptedLine(done, all),
    })
  }

  /** The part under way from now on. */
  enter(part: PartInterrupt): void {
    this.part = part
  }

  stop(): void {
    this.bar.stop()
  }
}

/** What an interrupted import says. */
const interruptedLine = (done: number, all: number) =>
  `interrupted: ${done} of ${all} tags created; re-run the same command to create the rest`

/** What a part does on Ctrl-C: lets its requests under way end, then says what was created (and remembers it). */
interface PartInterrupt {
  settle(): Promise<void>
  interrupted(done: number, all: number): string
}

/** What a server was found to take: arrays of tags or one a request (unknown until its first answer), and the most
 * items of an array, once a 413 has said so (MAS_MAX_BULK_ITEMS). Found by the first part of an import, so that
 * the batches of every later part go `concurrency` at once from their first. */
export interface BulkServer {
  takesArrays?: boolean
  /** reads a batch column-wise (src/columnBody.ts); false once it has answered one as a server that does not */
  takesColumns?: boolean
  limit: number
}

/** What is known of a server before its first answer. */
export const unknownServer = (): BulkServer => ({ limit: Infinity })

/** The tags in input order (rows created by an earlier run as `{id}`, rows already in the tag set as the
 * stored tag), how many of them an earlier run made, and how many were already in the tag set. */
export interface Sent {
  records: TagAnswer[]
  earlier: number
  skipped: number
}

/** A created tag as the server answers it (or `{id}` where only its id is kept). */
export type TagAnswer = Pick<Tag, 'id'> & Partial<Tag>

/** What a create answers: one tag, several, or `{results, skipped}` where the server skipped duplicates. */
type CreateAnswer = TagAnswer | TagAnswer[] | SkippingAnswer
interface SkippingAnswer {
  results: TagAnswer[]
  skipped: unknown[]
}
const isSkipping = (a: CreateAnswer): a is SkippingAnswer => Array.isArray((a as Partial<SkippingAnswer>).results)

/** Single creates at once when the server takes no arrays (at least, whatever --concurrency says). */
const SINGLE_CONCURRENCY = 8

export async function sendTags(api: ApiClient, parsed: ParsedTags, opts: SendOptions): Promise<Sent> {
  const key = TagImportMemory.keyOf(parsed.tags, opts.tagSet)
  const created = opts.memory.created(key)
  const records = new Array<TagAnswer>(parsed.tags.length)
  for (const [i, id] of created) records[i] = { id }
  const earlier = created.size
  const pending = parsed.tags.map((_t, i) => i).filter((i) => !created.has(i))
  const total = pending.length
  const before = opts.part?.before ?? 0
  const overall = opts.part?.total ?? total
  let interrupted = false
  const underWay = new Set<Promise<unknown>>()
  /** a request of this import, tracked so an interrupt can wait for the answers of those under way */
  const post = (body: Body, onStatus?: (status: number) => void) => {
    // without --json only the ids are kept: the server is asked for them alone (one that ignores `fields`, as the
    // original does, answers whole records, of which the ids are taken)
    const query = {
      ...(opts.skipDuplicates ? { onDuplicate: 'skip' } : {}),
      ...(opts.wholeRecords ? {} : { fields: 'id' }),
    }
    const request = api.request<CreateAnswer>('POST', 'tag/', {
      jsonText: body.text,
      retry: false,
      onStatus,
      query,
      ...(body.columns ? { headers: { 'content-type': COLUMNS_TYPE } } : {}),
    })
    underWay.add(request)
    request.finally(() => underWay.delete(request)).catch(() => {})
    return request
  }
  const onInterrupt: PartInterrupt = {
    // no more requests; the answers of those under way are waited for, so what they created is remembered
    settle: async () => {
      interrupted = true
      await Promise.allSettled([...underWay])
    },
    interrupted: (done, all) => {
      opts.memory.save(key, created)
      return interruptedLine(done, all)
    },
  }
  const progress = opts.progress.bar
  opts.progress.enter(onInterrupt)
  let sent = 0
  let skipped = 0
  let failed: Error | undefined
  const stopped = () => interrupted || failed !== undefined
  const { server } = opts
  const bodyOf = (rows: number[]): Body => {
    if (server.takesColumns !== false) {
      const text = columnBody(
        rows.map((i) => parsed.tags[i]),
        { tagSet: opts.tagSet },
      )
      if (text !== undefined) return { text, columns: true }
    }
    return { text: JSON.stringify(rows.map((i) => ({ ...parsed.tags[i], tagSet: opts.tagSet }))), columns: false }
  }
  const took = (rows: number[], answer: CreateAnswer) => {
    const answered = Array.isArray(answer) ? answer : isSkipping(answer) ? answer.results : [answer]
    if (isSkipping(answer) && Array.isArray(answer.skipped)) skipped += answer.skipped.length
    rows.forEach((row, k) => {
      records[row] = opts.wholeRecords || !answered[k] ? answered[k] : { id: answered[k].id }
      created.set(row, answered[k]?.id)
    })
    sent += rows.length
  }

  /** One batch as an array; false when the server takes no arrays. A batch over the server's limit goes
   * as batches within it, one after another (in input order). */
  const sendBatch = async (rows: number[], body?: Body, onStatus?: (status: number) => void): Promise<boolean> => {
    if (rows.length > server.limit) {
      for (let i = 0; i < rows.length && !stopped(); i += server.limit) {
        const part = rows.slice(i, i + server.limit)
        await sendBatch(part, undefined, i + server.limit >= rows.length ? onStatus : undefined)
      }
      return true
    }
    const sending = body && !(body.columns && server.takesColumns === false) ? body : bodyOf(rows)
    const answer = await post(sending, onStatus)
    if (sending.columns && refusesColumns(answer.status, answer.data)) {
      server.takesColumns = false
      return sendBatch(rows, undefined, onStatus)
    }
    if (sending.columns) server.takesColumns = true
    const limit = answer.status === 413 ? bulkLimitOf(answer.data) : undefined
    if (limit !== undefined && limit > 0 && limit < rows.length) {
      server.limit = Math.min(server.limit, limit)
      return sendBatch(rows, undefined, onStatus)
    }
    if (answer.status === 400 && !Array.isArray(answer.data) && /expected a dictionary/i.test(errorDetail(answer.data)))
      return false
    if (answer.status < 400) server.takesArrays = true
    if (answer.status >= 400) {
      failed ??= batchError(
        answer.status,
        answer.data,
        rows.map((i) => parsed.lines[i]),
        api.url('tag/'),
      )
      return true
    }
    took(rows, answer.data)
    progress.tick(rows.length, 0, `sent ${before + sent}/${overall} tags`)
    return true
  }

  const sendOne = async (row: number) => {
    if (stopped()) return
    const answer = await post({ text: JSON.stringify({ ...parsed.tags[row], tagSet: opts.tagSet }), columns: false })
    if (answer.status >= 400) {
      failed ??=
        answer.status === 400
          ? new Error(`The server rejected line ${parsed.lines[row]}: ${errorDetail(answer.data)}`)
          : new ApiError(answer.status, answer.data, 'POST', api.url('tag/'))
      return
    }
    took([row], answer.data)
    progress.tick(
      1,
      0,
      sent % opts.batchSize === 0 || sent === total ? `sent ${before + sent}/${overall} tags` : undefined,
    )
  }

  try {
    const batches: number[][] = []
    for (let i = 0; i < pending.length; i += opts.batchSize) batches.push(pending.slice(i, i + opts.batchSize))
    let rest = batches
    if (server.takesArrays === undefined && batches.length) {
      // the first batch of the import alone: its answer says whether the server takes arrays
      if (!(await sendBatch(batches[0]))) server.takesArrays = false
      rest = batches.slice(1)
    }
    if (server.takesArrays === false) await mapLimit(pending, Math.max(opts.concurrency, SINGLE_CONCURRENCY), sendOne)
    else if (!failed) await sendBatches(rest, opts.concurrency, stopped, bodyOf, sendBatch)
  } catch (err) {
    opts.memory.save(key, created)
    throw err
  }
  // interrupted: Progress remembers what was created, says so and ends the process
  if (interrupted) return new Promise<never>(() => {})
  opts.memory.save(key, failed ? created : new Map())
  if (failed) {
    const made = sent + earlier + (opts.part?.created ?? 0)
    const note = made ? ` (${made} tags were created)` : ' (nothing was created)'
    if (failed instanceof ApiError && failed.status !== 400) throw failed
    failure(failed.message + note)
  }
  return { records, earlier, skipped }
}

/** The batches after the first: `concurrency` at once, or one at a time so tag ids follow the input
 * order, the next batch going as soon as the answer's status shows this one committed, while its body
 * (the created tags) is still being read; each body is serialized while the batch before is on its way. */
async function sendBatches(
  batches: number[][],
  concurrency: number,
  stopped: () => boolean,
  bodyOf: (rows: number[]) => Body,
  sendBatch: (rows: number[], body?: Body, onStatus?: (status: number) => void) => Promise<boolean>,
): Promise<void> {
  const prepared = new Map<number, Body>()
  const started = new Set<number>()
  const send = async (i: number, onStatus?: (status: number) => void) => {
    if (stopped()) return
    started.add(i)
    const body = prepared.get(i) ?? bodyOf(batches[i])
    prepared.delete(i)
    const ahead = i + concurrency
    if (ahead < batches.length)
      setImmediate(() => {
        if (!stopped() && !started.has(ahead)) prepared.set(ahead, bodyOf(batches[ahead]))
      })
    await sendBatch(batches[i], body, onStatus)
  }
  if (concurrency > 1) {
    await mapLimit(batches, concurrency, (_b, i) => send(i))
    return
  }
  const sending: Promise<void>[] = []
  let committed: Promise<boolean> = Promise.resolve(true)
  for (let i = 0; i < batches.length && (await committed) && !stopped(); i++) {
    let settle!: (ok: boolean) => void
    committed = new Promise((resolve) => {
      settle = resolve
    })
    const done = send(i, (status) => settle(status < 400))
    done.then(
      () => settle(!stopped()),
      () => settle(false),
    )
    sending.push(done)
  }
  await Promise.all(sending)
}

/** A batch's body: its JSON text, column-wise or an array. */
interface Body {
  text: string
  columns: boolean
}

/** Is this the answer to a column-wise body of a server that does not read one? The original service answers 415; an
 * earlier mas read it as one tag and named the fields it lacks, where a server that reads it answers an array of
 * each item's errors, or `non_field_errors` about the body's shape. */
export function refusesColumns(status: number, data: unknown): boolean {
  if (status === 415) return true
  if (status !== 400 || data === null || typeof data !== 'object' || Array.isArray(data)) return false
  return Object.keys(data).some((k) => k !== 'non_field_errors' && k !== 'detail')
}

/** The limit a 413 names for bulk requests ("… takes at most 10000 items …"), if it names one. */
function bulkLimitOf(data: unknown): number | undefined {
  const m = /takes at most (\d+) items/.exec(errorDetail(data))
  return m ? Number(m[1]) : undefined
}

/** A rejected batch: per-item errors mapped back to the lines of the input. */
function batchError(status: number, body: unknown, lines: number[], url: string): Error {
  if (status === 400 && Array.isArray(body)) {
    const problems = (body as unknown[])
      .map((item, i) => {
        if (!item || typeof item !== 'object' || Object.keys(item).length === 0) return ''
        const text = Object.entries(item as Record<string, unknown>)
          .map(([k, v]) => `${k === 'non_field_errors' ? '' : `${k}: `}${Array.isArray(v) ? v.join(' ') : String(v)}`)
          .join('; ')
        return `line ${lines[i]}: ${text}`
      })
      .filter(Boolean)
    if (problems.length)
      return new Error(
        `The server rejected the batch: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`,
      )
  }
  return new ApiError(status, body, 'POST', url)
}
