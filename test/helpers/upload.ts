import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import FormData from 'form-data'
import type { TestApp, TestUser } from './app.js'

// Multipart uploads for tests (the same form-data library the CLI streams
// with) and a look at what a server keeps in its media directory.

export interface FilePart {
  data: Buffer
  filename: string
  contentType?: string
}

/** A multipart/form-data body: strings become text fields, FileParts file parts, in the order given. */
export function multipart(parts: Record<string, string | FilePart>): {
  payload: Buffer
  headers: Record<string, string>
} {
  const form = new FormData()
  for (const [name, v] of Object.entries(parts)) {
    if (typeof v === 'string') form.append(name, v)
    else form.append(name, v.data, { filename: v.filename, contentType: v.contentType ?? 'application/octet-stream' })
  }
  return { payload: form.getBuffer(), headers: form.getHeaders() as Record<string, string> }
}

/** POST a multipart body through app.inject, JSON answer parsed into .data. */
export async function postMultipart(
  t: TestApp,
  url: string,
  as: TestUser | undefined,
  parts: Record<string, string | FilePart>,
) {
  const { payload, headers } = multipart(parts)
  const res = await t.app.inject({ method: 'POST', url, payload, headers: { ...headers, ...(as?.auth ?? {}) } })
  let data: any
  try {
    data = res.body ? JSON.parse(res.body) : undefined
  } catch {
    data = res.body
  }
  return Object.assign(res, { data })
}

/** POST library/{id}/mediaFiles/import/ with one file and optional text fields. */
export function importMedia(
  t: TestApp,
  as: TestUser | undefined,
  library: number,
  data: Buffer,
  opts: { filename?: string; fields?: Record<string, string> } = {},
) {
  return postMultipart(t, `/api/v0/library/${library}/mediaFiles/import/`, as, {
    ...(opts.fields ?? {}),
    file: { data, filename: opts.filename ?? 'recording.wav', contentType: 'audio/wav' },
  })
}

/** Every file under the server's media directory (temporary uploads included), relative, sorted. */
export function storedFiles(t: TestApp): string[] {
  const root = (t.app as unknown as { config: { mediaDir: string } }).config.mediaDir
  const out: string[] = []
  const walk = (dir: string) => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(dir, e.name))
      else out.push(relative(root, join(dir, e.name)).split('\\').join('/'))
    }
  }
  walk(root)
  return out.sort()
}

export function mediaDirOf(t: TestApp): string {
  return (t.app as unknown as { config: { mediaDir: string } }).config.mediaDir
}
