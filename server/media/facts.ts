import { open } from 'node:fs/promises'
import { parseBuffer, parseFile, parseFromTokenizer, parseStream, type IAudioMetadata } from 'music-metadata'
import { NeedBytes, wavLayout } from '../analysis/wavLayout.js'
import type { Pending } from '../storage/storage.js'
import { RangeTokenizer } from './rangeTokenizer.js'
import { metadataStartTime } from './startTime.js'
import { pythonFloat } from './numberText.js'

// What the server learns from a media file's content: its kind (MediaTypes
// id), a file name extension and Content-Type, and the audio facts stored as
// MediaFileMetaData rows. The parser (music-metadata) reads WAV, FLAC, MP3,
// Ogg, AIFF, MP4/M4A, WebM/Matroska and more by their content.

export const MEDIA_TYPE_AUDIO = 1
export const MEDIA_TYPE_VIDEO = 5

export interface MediaFacts {
  type: number
  /** extension for the stored name, e.g. 'wav' */
  ext: string
  contentType: string
  durationInSeconds?: number
  sampleRate?: number
  numChannels?: number
  bitsPerSample?: number
  /** when the recording started, as the recorder wrote it into the file (README, "Recording start times") */
  recorderStartTime: string | null
  /** what is wrong with the file although it was read (e.g. truncated), one sentence each */
  warnings: string[]
}

export class NotMediaError extends Error {}

/** Container names as the parser reports them -> extension and Content-Type. */
const CONTAINERS: Array<[RegExp, string, string]> = [
  [/^WAVE/i, 'wav', 'audio/wav'],
  [/^FLAC/i, 'flac', 'audio/flac'],
  [/^MPEG/i, 'mp3', 'audio/mpeg'],
  [/^Ogg/i, 'ogg', 'audio/ogg'],
  [/^AIFF/i, 'aiff', 'audio/aiff'],
  [/^EBML\/webm/i, 'webm', 'audio/webm'],
  [/^EBML/i, 'mka', 'audio/x-matroska'],
  [/^(M4A|mp4|mp42|isom|M4B|3gp)/i, 'm4a', 'audio/mp4'],
  [/^ASF/i, 'wma', 'audio/x-ms-wma'],
  [/^DSF|^DSDIFF/i, 'dsf', 'audio/x-dsf'],
  [/^WavPack/i, 'wv', 'audio/x-wavpack'],
  [/^Musepack/i, 'mpc', 'audio/x-musepack'],
  [/^APEv2|^Monkey/i, 'ape', 'audio/x-ape'],
]

export async function readFacts(pending: Pending): Promise<MediaFacts> {
  if (isRf64(await readHead(pending, 12))) return rf64Facts(pending)
  let meta: IAudioMetadata
  try {
    const options = { skipCovers: true }
    meta = pending.localPath
      ? await parseFile(pending.localPath, options)
      : pending.readRange
        ? await parseFromTokenizer(
            new RangeTokenizer(pending.size, (start, end) => pending.readRange!({ start, end })),
            options,
          )
        : await parseStream(pending.read(), { size: pending.size }, options)
  } catch (e) {
    throw new NotMediaError(reason(e))
  }
  const f = meta.format
  if (!f.container || !(f.sampleRate || f.duration)) throw new NotMediaError('no audio stream was found in it')
  const [, ext, audioType] = CONTAINERS.find(([re]) => re.test(f.container!)) ?? [
    null,
    'bin',
    'application/octet-stream',
  ]
  const video = f.hasVideo === true
  return {
    type: video ? MEDIA_TYPE_VIDEO : MEDIA_TYPE_AUDIO,
    ext: video && ext === 'm4a' ? 'mp4' : ext,
    contentType: video ? audioType.replace(/^audio\//, 'video/') : audioType,
    durationInSeconds: finite(f.duration),
    sampleRate: finite(f.sampleRate),
    numChannels: finite(f.numberOfChannels),
    bitsPerSample: finite(f.bitsPerSample),
    recorderStartTime: metadataStartTime(
      meta,
      /^WAVE/i.test(f.container) ? await readHead(pending, HEAD_BYTES) : Buffer.alloc(0),
    ),
    warnings: damage(meta),
  }
}

const isRf64 = (head: Buffer) =>
  head.length >= 12 &&
  ['RF64', 'BW64'].includes(head.toString('latin1', 0, 4)) &&
  head.toString('latin1', 8, 12) === 'WAVE'

/**
 * An RF64 WAV file (over 4 GiB, as recorders write them), which the parser does not know: the layout
 * (wavLayout.ts) gives the duration from the 64-bit sizes of its ds64 chunk, and the parser reads its
 * metadata chunks from the head presented as a RIFF file whose data ends with the head.
 */
async function rf64Facts(pending: Pending): Promise<MediaFacts> {
  const head = await readHead(pending, HEAD_BYTES)
  let layout
  try {
    layout = wavLayout(
      (at, length) => (at + length <= head.length ? head.subarray(at, at + length) : null),
      pending.size,
    )
  } catch {
    throw new NotMediaError('it could not be parsed')
  }
  if (layout instanceof NeedBytes) throw new NotMediaError('it could not be parsed')
  const riff = Buffer.from(head)
  riff.write('RIFF', 0, 'latin1')
  riff.writeUInt32LE(riff.length - 8, 4)
  const inHead = Math.max(0, riff.length - layout.dataStart)
  riff.writeUInt32LE(inHead - (inHead % layout.blockAlign), layout.dataStart - 4)
  let meta: IAudioMetadata
  try {
    meta = await parseBuffer(
      riff.subarray(0, layout.dataStart + inHead - (inHead % layout.blockAlign)),
      { mimeType: 'audio/wav' },
      { skipCovers: true },
    )
  } catch (e) {
    throw new NotMediaError(reason(e))
  }
  return {
    type: MEDIA_TYPE_AUDIO,
    ext: 'wav',
    contentType: 'audio/wav',
    durationInSeconds: layout.dataBytes / layout.blockAlign / layout.sampleRate,
    sampleRate: layout.sampleRate,
    numChannels: layout.channels,
    bitsPerSample: layout.bitsPerSample,
    recorderStartTime: metadataStartTime(meta, riff),
    warnings: [],
  }
}

/** the first bytes of a WAV file, where recorders put their metadata chunks (before the audio data) */
const HEAD_BYTES = 256 * 1024

async function readHead(pending: Pending, bytes: number): Promise<Buffer> {
  if (pending.localPath) {
    const file = await open(pending.localPath, 'r')
    try {
      const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(bytes), position: 0 })
      return buffer.subarray(0, bytesRead)
    } finally {
      await file.close()
    }
  }
  const chunks: Buffer[] = []
  let total = 0
  const stream =
    pending.readRange && pending.size > 0
      ? pending.readRange({ start: 0, end: Math.min(bytes, pending.size) - 1 })
      : pending.read()
  for await (const c of stream) {
    chunks.push(c as Buffer)
    total += (c as Buffer).length
    if (total >= bytes) break
  }
  stream.destroy()
  return Buffer.concat(chunks).subarray(0, bytes)
}

/** The parser's warnings that mean the file is damaged, in words for people (the others are about
 * chunks it does not know, which recorders add freely). */
const DAMAGE: Array<[RegExp, string]> = [
  [/data chunk length exceeding file length/i, 'truncated: the file ends before its audio data does'],
]

function damage(meta: IAudioMetadata): string[] {
  const out = new Set<string>()
  for (const w of meta.quality.warnings) for (const [re, text] of DAMAGE) if (re.test(w.message)) out.add(text)
  return [...out]
}

function reason(e: unknown): string {
  const name = (e as Error)?.constructor?.name
  if (name === 'CouldNotDetermineFileTypeError' || name === 'UnsupportedFileTypeError')
    return 'its format was not recognised'
  return 'it could not be parsed'
}

const finite = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined)

/** The read-only MediaFileMetaData rows of these facts, in a fixed order. */
export function metaDataRows(facts: MediaFacts, fileSize: number): Array<{ name: string; value: string }> {
  const rows = [{ name: 'fileSize', value: String(fileSize) }]
  if (facts.durationInSeconds !== undefined)
    rows.push({ name: 'durationInSeconds', value: pythonFloat(facts.durationInSeconds) })
  if (facts.sampleRate !== undefined) rows.push({ name: 'sampleRate', value: String(facts.sampleRate) })
  if (facts.numChannels !== undefined) rows.push({ name: 'numChannels', value: String(facts.numChannels) })
  if (facts.bitsPerSample !== undefined) rows.push({ name: 'bitsPerSample', value: String(facts.bitsPerSample) })
  for (const w of facts.warnings) rows.push({ name: 'warning', value: w })
  return rows
}

/** Content-Type of a stored file by its extension (the server chose it from the content on import). */
const BY_EXTENSION: Record<string, string> = {
  ...Object.fromEntries(CONTAINERS.map(([, ext, type]) => [ext, type])),
  mp4: 'video/mp4',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  xml: 'application/xml',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  gz: 'application/gzip',
  npy: 'application/octet-stream',
  log: 'text/plain; charset=utf-8',
}

export function contentTypeOf(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? ''
  return BY_EXTENSION[ext] ?? 'application/octet-stream'
}
