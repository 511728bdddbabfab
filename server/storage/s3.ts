import { createHash, randomBytes } from 'node:crypto'
import { PassThrough, Readable } from 'node:stream'
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { hashing, isStoredName, type ByteRange, type Pending, type Storage, type StoredFileInfo } from './storage.js'
import { asStorageError, isMissing, notImplemented } from './s3Errors.js'

// Storage in an S3-compatible bucket (docs/architecture.md, "Storage"). Uploads larger than one part
// stream, hashed on the way, into a multipart upload under `<prefix>/.incoming/` (a few parts in memory,
// never the whole file, nothing on local disk) and are copied to their stored name on commit, inside the
// transaction of the row that names them, exactly as the local directory renames them: so the
// uncommitted-media sweep works the same on both. A file of one part stays in memory until commit writes
// it once. Received bytes never committed, and multipart uploads a crash left open, are swept once older
// than any live upload could be.

export interface S3Settings {
  bucket: string
  /** key prefix inside the bucket, without leading or trailing '/'; '' for the bucket's root */
  prefix: string
  /** an S3-compatible store's address (MinIO, Ceph, ...); absent: AWS */
  endpoint?: string
  region: string
  /** bucket in the path (http://host/bucket/key) instead of the host name; most S3-compatible stores want it */
  forcePathStyle: boolean
  /** 'when_required' for stores that predate the SDK's default request checksums (s3rver, MinIO before 2024-11) */
  checksums: 'when_supported' | 'when_required'
}

/** s3://bucket/prefix → bucket and prefix; null for anything else */
export function parseS3Url(url: string): { bucket: string; prefix: string } | null {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url)
  if (!m) return null
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '')
  if (prefix && !isStoredName(prefix)) return null
  return { bucket: m[1], prefix }
}

const INCOMING = '.incoming'
/** bytes of one multipart part: the SDK holds up to QUEUE of them in memory per upload */
const PART_BYTES = 8 * 1024 * 1024
const QUEUE = 4

export class S3Storage implements Storage {
  readonly client: S3Client
  /** keys of this process's uploads not yet committed or discarded: never swept */
  private readonly live = new Set<string>()

  /** `minBytesPerSecond`: the slowest request body the server accepts (MAS_MIN_BODY_BYTES_PER_SECOND) */
  constructor(
    readonly settings: S3Settings,
    private readonly options: { minBytesPerSecond: number } = { minBytesPerSecond: 1024 },
  ) {
    const when = settings.checksums === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED'
    // credentials: the SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws files, instance roles)
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      requestChecksumCalculation: when,
      responseChecksumValidation: when,
    })
  }

  private get bucket(): string {
    return this.settings.bucket
  }

  /** the key of a stored name; throws for anything that is not one */
  keyOf(name: string): string {
    if (!isStoredName(name)) throw new Error('not a stored name')
    return this.settings.prefix ? `${this.settings.prefix}/${name}` : name
  }

  private get incomingPrefix(): string {
    return this.settings.prefix ? `${this.settings.prefix}/${INCOMING}/` : `${INCOMING}/`
  }

  async receive(source: Readable | AsyncIterable<Buffer>): Promise<Pending> {
    // up to one part is read first: a file that fits stays in memory (as the SDK would hold it anyway) and
    // is written once, under its stored name, on commit; a larger one goes on as a multipart upload
    const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>
    const head: Buffer[] = []
    let headBytes = 0
    for (;;) {
      const next = await chunks.next()
      if (next.done) {
        const bytes = Buffer.concat(head, headBytes)
        return new MemoryPending(this, bytes, createHash('md5').update(bytes).digest('hex'))
      }
      head.push(next.value)
      headBytes += next.value.length
      if (headBytes > PART_BYTES) break
    }
    const rest = { [Symbol.asyncIterator]: () => chunks }
    return this.upload(
      (async function* () {
        yield* head
        yield* rest
      })(),
    )
  }

  /** a multipart upload of `source` under the incoming prefix, hashed on the way */
  private async upload(source: AsyncIterable<Buffer>): Promise<Pending> {
    const key = `${this.incomingPrefix}${randomBytes(12).toString('hex')}.part`
    let md5 = ''
    let size = 0
    this.live.add(key)
    const body = Readable.from(
      hashing((h, n) => {
        md5 = h
        size = n
      })(source),
    )
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_BYTES,
      queueSize: QUEUE,
      // parts are aborted here, so the source's error is the one reported, whatever the store says to the abort
      leavePartsOnError: true,
    })
    try {
      await upload.done()
    } catch (e) {
      body.destroy()
      this.live.delete(key)
      if (upload.uploadId) {
        // a store that cannot abort (s3rver) keeps the parts out of sight; the sweep retries on others
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: upload.uploadId }))
          .catch(() => {})
      }
      // a failure after the last byte may still have written the object
      await this.deleteKey(key).catch(() => {})
      throw asStorageError(e)
    }
    return new S3Pending(this, key, md5, size, () => this.live.delete(key))
  }

  /** write `bytes` under a stored name */
  async put(name: string, bytes: Buffer): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(name), Body: bytes, ContentLength: bytes.length }),
      )
    } catch (e) {
      throw asStorageError(e)
    }
  }

  async stat(name: string): Promise<StoredFileInfo | null> {
    if (!isStoredName(name)) return null
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(name) }))
      return { size: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0) }
    } catch (e) {
      if (isMissing(e)) return null
      throw e
    }
  }

  read(name: string, range?: ByteRange): Readable {
    return this.readKey(this.keyOf(name), range)
  }

  /** the object's bytes as a stream available at once; a failed request errors the stream */
  readKey(key: string, range?: ByteRange): Readable {
    const out = new PassThrough()
    this.client
      .send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      )
      .then(
        (res) => {
          const body = res.Body as Readable
          out.on('close', () => body.destroy())
          body.on('error', (e) => out.destroy(e))
          body.pipe(out)
        },
        (e) => out.destroy(e as Error),
      )
    return out
  }

  async remove(name: string): Promise<void> {
    if (!isStoredName(name)) return
    await this.deleteKey(this.keyOf(name))
  }

  async deleteKey(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
  }

  async list(folder: string): Promise<string[]> {
    if (!isStoredName(folder)) return []
    const prefix = `${this.keyOf(folder)}/`
    const names: string[] = []
    for await (const o of this.objects(prefix, '/')) {
      const name = `${folder}/${o.Key!.slice(prefix.length)}`
      if (isStoredName(name)) names.push(name)
    }
    return names
  }

  private async *objects(prefix: string, delimiter?: string) {
    let token: string | undefined
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          Delimiter: delimiter,
          ContinuationToken: token,
        }),
      )
      for (const o of page.Contents ?? []) if (o.Key) yield o
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  async sweepIncoming(maxAgeMs: number): Promise<number> {
    const before = Date.now() - maxAgeMs
    let removed = 0
    for await (const o of this.objects(this.incomingPrefix)) {
      if (!o.Key!.endsWith('.part') || this.live.has(o.Key!)) continue
      if (o.LastModified && o.LastModified.getTime() < before) {
        await this.deleteKey(o.Key!).catch(() => {})
        removed++
      }
    }
    // a live multipart upload adds a part each PART_BYTES received, which a body at the slowest rate
    // the server accepts takes PART_BYTES / minBytesPerSecond: twice that, or the age asked, whichever is longer
    const partSilenceMs = 2 * (PART_BYTES / this.options.minBytesPerSecond) * 1000
    return removed + (await this.abortAbandonedUploads(Date.now() - Math.max(maxAgeMs, partSilenceMs)))
  }

  /**
   * Abort multipart uploads under the incoming prefix that no process has added a part to since
   * `before`. A store that cannot list multipart uploads (s3rver) is left to its own expiry rules
   * (an AbortIncompleteMultipartUpload lifecycle rule on AWS).
   */
  private async abortAbandonedUploads(before: number): Promise<number> {
    let removed = 0
    let keyMarker: string | undefined
    let idMarker: string | undefined
    do {
      let page
      try {
        page = await this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.bucket,
            Prefix: this.incomingPrefix,
            KeyMarker: keyMarker,
            UploadIdMarker: idMarker,
          }),
        )
      } catch (e) {
        if (notImplemented(e)) return removed
        throw e
      }
      for (const u of page.Uploads ?? []) {
        if (!u.Key || !u.UploadId || this.live.has(u.Key)) continue
        if (!u.Initiated || u.Initiated.getTime() >= before) continue
        if ((await this.latestPart(u.Key, u.UploadId, u.Initiated.getTime())) >= before) continue
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: u.Key, UploadId: u.UploadId }))
          .catch(() => {})
        removed++
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined
      idMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined
    } while (keyMarker)
    return removed
  }

  /**
   * The time of the upload's latest part, or `initiated` when it has none. The parts are paged through to
   * the last (a store lists up to 1000 a page): an upload of a long file still going on elsewhere has
   * its recent parts at the end.
   */
  private async latestPart(key: string, uploadId: string, initiated: number): Promise<number> {
    let latest = initiated
    let marker: string | undefined
    do {
      const page = await this.client.send(
        new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
      )
      for (const p of page.Parts ?? []) latest = Math.max(latest, p.LastModified?.getTime() ?? 0)
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined
    } while (marker)
    return latest
  }
}

class S3Pending implements Pending {
  private done = false

  constructor(
    private readonly storage: S3Storage,
    private readonly key: string,
    readonly md5: string,
    readonly size: number,
    private readonly settled: () => void,
  ) {}

  read(): Readable {
    return this.storage.readKey(this.key)
  }

  readRange(range: ByteRange): Readable {
    return this.storage.readKey(this.key, range)
  }

  async commit(name: string): Promise<void> {
    if (this.done) throw new Error('upload already committed or discarded')
    const s = this.storage.settings
    await this.storage.client.send(
      new CopyObjectCommand({
        Bucket: s.bucket,
        Key: this.storage.keyOf(name),
        CopySource: `${s.bucket}/${this.key}`,
      }),
    )
    this.done = true
    this.settled()
    await this.storage.deleteKey(this.key).catch(() => {})
  }

  async discard(): Promise<void> {
    if (this.done) return
    this.done = true
    this.settled()
    await this.storage.deleteKey(this.key).catch(() => {})
  }
}

/** Received bytes of at most one part, in memory: nothing is in the bucket before commit. */
class MemoryPending implements Pending {
  private done = false

  constructor(
    private readonly storage: S3Storage,
    private readonly bytes: Buffer,
    readonly md5: string,
  ) {}

  get size(): number {
    return this.bytes.length
  }

  read(): Readable {
    return Readable.from([this.bytes], { objectMode: false })
  }

  async commit(name: string): Promise<void> {
    if (this.done) throw new Error('upload already committed or discarded')
    await this.storage.put(name, this.bytes)
    this.done = true
  }

  async discard(): Promise<void> {
    this.done = true
  }
}
