import { ApiError, mapLimit, type ApiClient } from './api.js'
import { failure } from './base-command.js'
import { Progress } from './output.js'
import type { ParsedTags } from './tag-formats.js'

// Sending validated tags to POST tag/ in batches (each batch all-or-nothing on the server).

export interface SendOptions { tagSet: number; batchSize: number; concurrency: number; quiet: boolean }

export async function sendTags(api: ApiClient, parsed: ParsedTags, opts: SendOptions): Promise<any[]> {
  const batches: { start: number; end: number }[] = []
  for (let i = 0; i < parsed.tags.length; i += opts.batchSize) batches.push({ start: i, end: Math.min(i + opts.batchSize, parsed.tags.length) })
  const progress = new Progress(parsed.tags.length, {
    unit: 'tags', quiet: opts.quiet,
    interrupted: (done, total) => `interrupted: ${done} of ${total} tags created (a re-run sends every tag again: import only those not in tag set ${opts.tagSet} yet)`,
  })
  const created: any[][] = []
  let sent = 0
  let failed: Error | undefined
  // A batch's body is serialized while the batch before it is on its way (the server's time), not after.
  const bodyOf = (b: { start: number; end: number }) => JSON.stringify(parsed.tags.slice(b.start, b.end).map((t) => ({ ...t, tagSet: opts.tagSet })))
  const prepared = new Map<number, string>()
  const started = new Set<number>()
  const send = async (i: number, onStatus?: (status: number) => void) => {
    if (failed) return
    const b = batches[i]
    started.add(i)
    const body = prepared.get(i) ?? bodyOf(b)
    prepared.delete(i)
    const sending = api.request<any>('POST', 'tag/', { jsonText: body, retry: false, onStatus })
    const ahead = i + opts.concurrency
    if (ahead < batches.length) setImmediate(() => { if (!failed && !started.has(ahead)) prepared.set(ahead, bodyOf(batches[ahead])) })
    const answer = await sending
    if (answer.status >= 400) {
      failed ??= batchError(answer.status, answer.data, parsed.lines.slice(b.start, b.end), api.url('tag/'))
      return
    }
    created[i] = Array.isArray(answer.data) ? answer.data : [answer.data]
    sent += b.end - b.start
    progress.tick(b.end - b.start, 0, `sent ${sent}/${parsed.tags.length} tags`)
  }
  try {
    if (opts.concurrency > 1) await mapLimit(batches, opts.concurrency, (_b, i) => send(i))
    else {
      // One batch at a time, so tag ids follow the input order: the next batch goes as soon as the
      // answer's status shows this one committed, while its body (the created tags) is still being read.
      const sending: Promise<void>[] = []
      let committed: Promise<boolean> = Promise.resolve(true)
      for (let i = 0; i < batches.length && await committed && !failed; i++) {
        let settle!: (ok: boolean) => void
        committed = new Promise((resolve) => { settle = resolve })
        const done = send(i, (status) => settle(status < 400))
        done.then(() => settle(!failed), () => settle(false))
        sending.push(done)
      }
      await Promise.all(sending)
    }
  } finally {
    progress.stop()
  }
  if (failed) {
    const note = sent ? ` (${sent} tags in earlier batches were created)` : ' (nothing was created)'
    if (failed instanceof ApiError && failed.status !== 400) throw failed
    failure(failed.message + note)
  }
  return created.flat()
}

/** A rejected batch: per-item errors mapped back to the lines of the input. */
function batchError(status: number, body: unknown, lines: number[], url: string): Error {
  if (status === 400 && Array.isArray(body)) {
    const problems = body.map((item, i) => {
      if (!item || typeof item !== 'object' || Object.keys(item).length === 0) return ''
      const text = Object.entries(item as Record<string, unknown>)
        .map(([k, v]) => `${k === 'non_field_errors' ? '' : `${k}: `}${Array.isArray(v) ? v.join(' ') : String(v)}`).join('; ')
      return `line ${lines[i]}: ${text}`
    }).filter(Boolean)
    if (problems.length) return new Error(`The server rejected the batch: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`)
  }
  return new ApiError(status, body, 'POST', url)
}
