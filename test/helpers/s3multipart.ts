import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

// A front for the test S3 server (s3rver) that adds the multipart calls s3rver lacks: ListMultipartUploads,
// ListParts and AbortMultipartUpload. It is a real HTTP server on a free port standing in for a bucket
// service, not a stand-in for any of our code: every other request (objects, CreateMultipartUpload,
// UploadPart, CompleteMultipartUpload) is forwarded to s3rver unchanged, Host header and signature included,
// and the front remembers the multipart uploads it saw created and the parts it saw stored, answering the
// three calls from that in S3's XML. An upload aborted or completed is gone: a later part, completion or
// abort of it is refused with NoSuchUpload, as S3 does. Signatures on the three calls are not checked.
//
// For tests of the sweep of abandoned uploads (docs/architecture.md, "Storage") without waiting hours:
// `age` moves an upload's initiation and its parts' times into the past, as the listings then report them.
// `pageSize` makes the listings answer a few entries at a time, so a client's paging is exercised.

export interface TrackedPart {
  number: number
  etag: string
  size: number
  lastModified: Date
}

export interface TrackedUpload {
  bucket: string
  key: string
  uploadId: string
  initiated: Date
  parts: Map<number, TrackedPart>
}

export interface MultipartFront {
  endpoint: string
  /** uploads created and neither completed nor aborted, in the order they were created */
  open(): TrackedUpload[]
  /** uploads aborted through the front, in the order they were aborted, with the parts they had */
  readonly aborted: TrackedUpload[]
  /** sets an open upload's initiation to `initiatedMsAgo` ago and its part n's time to `partsMsAgo[n - 1]` ago */
  age(uploadId: string, initiatedMsAgo: number, partsMsAgo?: (number | undefined)[]): void
  close(): Promise<void>
}

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/'

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** a front on 127.0.0.1 for the S3 server at `target` (http://host:port, path-style addressing) */
export async function startMultipartFront(
  target: string,
  options: { pageSize?: number } = {},
): Promise<MultipartFront> {
  const pageSize = options.pageSize ?? 1000
  const upstream = new URL(target)
  const uploads = new Map<string, TrackedUpload>()
  const aborted: TrackedUpload[] = []

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    inspect?: (status: number, headers: IncomingHttpHeaders, body: Buffer) => void,
  ): void {
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        const status = answer.statusCode ?? 502
        if (!inspect) {
          res.writeHead(status, answer.headers)
          answer.pipe(res)
          res.on('close', () => answer.destroy())
          return
        }
        const chunks: Buffer[] = []
        answer.on('data', (c: Buffer) => chunks.push(c))
        answer.on('end', () => {
          const body = Buffer.concat(chunks)
          inspect(status, answer.headers, body)
          res.writeHead(status, answer.headers)
          res.end(body)
        })
      },
    )
    up.on('error', () => res.destroy())
    // a client that breaks off its request breaks off the forwarded one
    req.on('close', () => {
      if (!req.complete) up.destroy()
    })
    req.pipe(up)
  }

  function xml(res: ServerResponse, status: number, body: string): void {
    const bytes = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`)
    res.writeHead(status, { 'content-type': 'application/xml', 'content-length': bytes.length })
    res.end(bytes)
  }

  function noSuchUpload(req: IncomingMessage, res: ServerResponse, uploadId: string): void {
    req.resume()
    xml(
      res,
      404,
      `<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${esc(uploadId)}</UploadId></Error>`,
    )
  }

  /** S3's order: by key, then by initiation */
  const ordered = () =>
    [...uploads.values()].sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : a.initiated.getTime() - b.initiated.getTime(),
    )

  function listUploads(res: ServerResponse, bucket: string, q: URLSearchParams): void {
    const prefix = q.get('prefix') ?? ''
    const keyMarker = q.get('key-marker') ?? ''
    const idMarker = q.get('upload-id-marker') ?? ''
    const max = Math.min(pageSize, Number(q.get('max-uploads') ?? 1000))
    const all = ordered().filter((u) => u.bucket === bucket && u.key.startsWith(prefix))
    let start = 0
    if (keyMarker) {
      const at = idMarker ? all.findIndex((u) => u.key === keyMarker && u.uploadId === idMarker) : -1
      start = at >= 0 ? at + 1 : all.findIndex((u) => u.key > keyMarker)
      if (start < 0) start = all.length
    }
    const page = all.slice(start, start + max)
    const truncated = start + max < all.length
    const last = page[page.length - 1]
    xml(
      res,
      200,
      `<ListMultipartUploadsResult xmlns="${XMLNS}"><Bucket>${esc(bucket)}</Bucket>` +
        `<KeyMarker>${esc(keyMarker)}</KeyMarker><UploadIdMarker>${esc(idMarker)}</UploadIdMarker>` +
        (truncated
          ? `<NextKeyMarker>${esc(last.key)}</NextKeyMarker><NextUploadIdMarker>${esc(last.uploadId)}</NextUploadIdMarker>`
          : '') +
        `<Prefix>${esc(prefix)}</Prefix><MaxUploads>${max}</MaxUploads><IsTruncated>${truncated}</IsTruncated>` +
        page
          .map(
            (u) =>
              `<Upload><Key>${esc(u.key)}</Key><UploadId>${esc(u.uploadId)}</UploadId>` +
              '<Initiator><ID>S3RVER</ID><DisplayName>S3RVER</DisplayName></Initiator><Owner><ID>S3RVER</ID><DisplayName>S3RVER</DisplayName></Owner>' +
              `<StorageClass>STANDARD</StorageClass><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
          )
          .join('') +
        '</ListMultipartUploadsResult>',
    )
  }

  function listParts(res: ServerResponse, u: TrackedUpload, q: URLSearchParams): void {
    const marker = Number(q.get('part-number-marker') ?? 0)
    const max = Math.min(pageSize, Number(q.get('max-parts') ?? 1000))
    const all = [...u.parts.values()].sort((a, b) => a.number - b.number).filter((p) => p.number > marker)
    const page = all.slice(0, max)
    const truncated = all.length > max
    xml(
      res,
      200,
      `<ListPartsResult xmlns="${XMLNS}"><Bucket>${esc(u.bucket)}</Bucket><Key>${esc(u.key)}</Key>` +
        `<UploadId>${esc(u.uploadId)}</UploadId><PartNumberMarker>${marker}</PartNumberMarker>` +
        `<NextPartNumberMarker>${page.length ? page[page.length - 1].number : marker}</NextPartNumberMarker>` +
        `<MaxParts>${max}</MaxParts><IsTruncated>${truncated}</IsTruncated><StorageClass>STANDARD</StorageClass>` +
        page
          .map(
            (p) =>
              `<Part><PartNumber>${p.number}</PartNumber><LastModified>${p.lastModified.toISOString()}</LastModified>` +
              `<ETag>${esc(p.etag)}</ETag><Size>${p.size}</Size></Part>`,
          )
          .join('') +
        '</ListPartsResult>',
    )
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://front')
    const q = url.searchParams
    const [, bucket = '', ...rest] = url.pathname.split('/')
    const key = rest.map(decodeURIComponent).join('/')
    const uploadId = q.get('uploadId')
    if (!key) {
      if (req.method === 'GET' && q.has('uploads')) {
        req.resume()
        return listUploads(res, bucket, q)
      }
      return forward(req, res)
    }
    if (req.method === 'POST' && q.has('uploads')) {
      return forward(req, res, (status, _headers, body) => {
        const id = /<UploadId>([^<]+)<\/UploadId>/.exec(body.toString())?.[1]
        if (status === 200 && id)
          uploads.set(id, { bucket, key, uploadId: id, initiated: new Date(), parts: new Map() })
      })
    }
    if (uploadId === null) return forward(req, res)
    const u = uploads.get(uploadId)
    if (!u || u.bucket !== bucket || u.key !== key) return noSuchUpload(req, res, uploadId)
    if (req.method === 'GET') {
      req.resume()
      return listParts(res, u, q)
    }
    if (req.method === 'DELETE') {
      req.resume()
      uploads.delete(uploadId)
      aborted.push(u)
      res.writeHead(204).end()
      return
    }
    if (req.method === 'PUT') {
      const number = Number(q.get('partNumber'))
      const size = Number(req.headers['x-amz-decoded-content-length'] ?? req.headers['content-length'] ?? 0)
      return forward(req, res, (status, headers) => {
        if (status === 200 && uploads.has(uploadId)) {
          u.parts.set(number, { number, etag: String(headers.etag ?? ''), size, lastModified: new Date() })
        }
      })
    }
    if (req.method === 'POST') {
      return forward(req, res, (status, _headers, body) => {
        if (status === 200 && !body.includes('<Error>')) uploads.delete(uploadId)
      })
    }
    forward(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    endpoint: `http://127.0.0.1:${port}`,
    open: () => [...uploads.values()],
    aborted,
    age(uploadId, initiatedMsAgo, partsMsAgo = []) {
      const u = uploads.get(uploadId)
      if (!u) throw new Error(`no open upload ${uploadId}`)
      const now = Date.now()
      u.initiated = new Date(now - initiatedMsAgo)
      partsMsAgo.forEach((ms, i) => {
        const part = u.parts.get(i + 1)
        if (part && ms !== undefined) part.lastModified = new Date(now - ms)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
