import type { Context } from './endpoint.js'
import { ApiError, badRequest, fieldTooLarge, tooLarge } from './errors.js'
import { StorageError, type Pending, type Storage } from '../storage/storage.js'

// A request carrying one file: multipart text fields plus the named file part,
// streamed into storage while it arrives (never held in memory). Anything that
// goes wrong before the caller takes over (a broken connection, the size
// limit, a second file) discards what was received.

export interface Upload {
  fields: Record<string, unknown>
  /** the received file, or null when the request had none */
  file: Pending | null
  /** the client's name for the file (never used as a path) */
  filename: string
}

export async function receiveUpload(ctx: Context, storage: Storage, fileField: string): Promise<Upload> {
  const req = ctx.req
  if (!req.isMultipart()) {
    // JSON or form: fields only, so the caller reports the missing file
    const body = await ctx.body()
    const fields =
      body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
    return { fields, file: null, filename: '' }
  }
  const fields: Record<string, unknown> = {}
  let file: Pending | null = null
  let filename = ''
  try {
    for await (const part of req.parts()) {
      if (part.type === 'field') {
        // a value cut at the field size limit is refused (413 naming it), never dropped or stored shortened
        if (part.valueTruncated) throw fieldTooLarge(part.fieldname)
        fields[part.fieldname] = part.value
        continue
      }
      if (part.fieldname !== fileField || file) {
        part.file.resume()
        continue
      }
      file = await storage.receive(part.file)
      filename = part.filename ?? ''
      if (part.file.truncated)
        throw tooLarge(`The file is larger than the limit of ${ctx.config.maxUploadBytes} bytes.`)
    }
    // the parser ends quietly when the connection drops between parts
    if (aborted(ctx)) throw interrupted()
  } catch (e) {
    await file?.discard()
    throw asUploadError(ctx, e)
  }
  return { fields, file, filename }
}

const interrupted = () => badRequest({ detail: 'The upload was interrupted before it completed.' })

function aborted(ctx: Context): boolean {
  const raw = ctx.req.raw as typeof ctx.req.raw & { aborted?: boolean }
  return raw.aborted === true || raw.readableAborted
}

/** A broken connection or malformed multipart data is the client's doing (400); disk and bucket errors stay 500s. */
function asUploadError(ctx: Context, e: unknown): unknown {
  const err = e as Error & { statusCode?: number; code?: string; syscall?: string }
  if (err instanceof ApiError || err instanceof StorageError || err.statusCode || err.syscall) return e
  if (aborted(ctx) || err.code === 'ERR_STREAM_PREMATURE_CLOSE') return interrupted()
  return badRequest({ detail: `Multipart form parse error - ${err.message}` })
}
