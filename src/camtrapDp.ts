import { once } from 'node:events'
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, mkdtemp, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import * as Flags from '@oclif/core/flags'
import { ApiError, mapLimit, type ApiClient } from './api.js'
import type { RecordAt, RecordPath } from './apiPaths.js'
import { failure, usageError } from './exits.js'
import type { FoundTagSet } from './lookup.js'
import type { MediaFile, Review } from './records.js'
import { loadNames, SENSORS, TAG_CLASSES, USERS } from './names.js'
import { ravenFile, type RavenFile } from './raven.js'
import { CSV_COLUMNS, csvField, provenanceCells, type TagRecord } from './tagFormats.js'
import { TextWriter } from './utf8Chunks.js'
import { tagSetReviews, tagSetTagPages } from './tagSetStream.js'

// `mas tag export --format camtrap-dp -o DIR`: a Camera Trap Data Package (Camtrap DP 1.0.2) of a tag set's tags,
// the route of verified detections to GBIF (docs/decisions.md §33). Deployments are the recordings of one sensor
// (or of one folder where there is none), media the recordings, observations the tags with their review status.
// The tags are streamed into observations.csv as they come; the recordings, deployments and datapackage.json are
// written after them, from what the tags named.

export const CAMTRAP_DP_VERSION = '1.0.2'
const SCHEMA_BASE = `https://raw.githubusercontent.com/tdwg/camtrap-dp/${CAMTRAP_DP_VERSION}`
const MISSING_LOCATION = 'Camtrap DP requires latitude and longitude'

/** The columns of each table: Camtrap DP 1.0.2's fields in their order, then mas's extension columns (§33). */
export const DEPLOYMENT_COLUMNS = [
  'deploymentID',
  'locationID',
  'locationName',
  'latitude',
  'longitude',
  'coordinateUncertainty',
  'deploymentStart',
  'deploymentEnd',
  'setupBy',
  'cameraID',
  'cameraModel',
  'cameraDelay',
  'cameraHeight',
  'cameraDepth',
  'cameraTilt',
  'cameraHeading',
  'detectionDistance',
  'timestampIssues',
  'baitUse',
  'featureType',
  'habitat',
  'deploymentGroups',
  'deploymentTags',
  'deploymentComments',
] as const
export const MEDIA_COLUMNS = [
  'mediaID',
  'deploymentID',
  'captureMethod',
  'timestamp',
  'filePath',
  'filePublic',
  'fileName',
  'fileMediatype',
  'exifData',
  'favorite',
  'mediaComments',
] as const
export const MEDIA_EXTENSIONS = ['samplingFrequency', 'bitDepth', 'duration'] as const
export const OBSERVATION_COLUMNS = [
  'observationID',
  'deploymentID',
  'mediaID',
  'eventID',
  'eventStart',
  'eventEnd',
  'observationLevel',
  'observationType',
  'cameraSetupType',
  'scientificName',
  'count',
  'lifeStage',
  'sex',
  'behavior',
  'individualID',
  'individualPositionRadius',
  'individualPositionAngle',
  'individualSpeed',
  'bboxX',
  'bboxY',
  'bboxWidth',
  'bboxHeight',
  'classificationMethod',
  'classifiedBy',
  'classificationTimestamp',
  'classificationProbability',
  'observationTags',
  'observationComments',
] as const
export const OBSERVATION_EXTENSIONS = [
  'frequencyLow',
  'frequencyHigh',
  'startOffset',
  'endOffset',
  'detectionStrength',
  'reviewStatus',
  'taggedClass',
  'provenance',
] as const

/** The flags of the format, spread into `mas tag export`'s. */
export const camtrapFlags = {
  output: Flags.string({
    char: 'o',
    description:
      'file to write the export to instead of standard output (replaced once whole); with --format camtrap-dp the folder of the package (new or empty)',
  }),
  'reviewed-only': Flags.boolean({
    description: 'only the tags reviewers confirmed (consensus yes; --format camtrap-dp)',
    default: false,
  }),
  'utc-offset': Flags.string({
    description: "the recorders' clock offset from UTC, e.g. +02:00 (--format camtrap-dp; default: UTC)",
    default: 'Z',
  }),
  latitude: Flags.string({
    description: 'latitude of deployments whose recordings have none in their metadata (--format camtrap-dp)',
  }),
  longitude: Flags.string({
    description: 'longitude of deployments whose recordings have none in their metadata (--format camtrap-dp)',
  }),
}

export interface CamtrapFlags {
  output?: string
  'reviewed-only'?: boolean
  'utc-offset'?: string
  latitude?: string
  longitude?: string
}

/** The flags of the format refused with any other one, and their values checked: a usage error says which. */
export function checkCamtrapFlags(flags: CamtrapFlags, format: string): void {
  const given = (['reviewed-only', 'latitude', 'longitude'] as const).filter(
    (f) => flags[f] !== undefined && flags[f] !== false,
  )
  if (flags['utc-offset'] !== undefined && flags['utc-offset'] !== 'Z') given.push('utc-offset' as never)
  if (format !== 'camtrap-dp') {
    if (given.length) usageError(`--${given[0]} is for --format camtrap-dp only`)
    return
  }
  if (!flags.output) usageError('--format camtrap-dp writes a folder of files: give it with -o DIR')
  utcOffset(flags['utc-offset'] ?? 'Z')
  const lat = flags.latitude === undefined ? undefined : Number(flags.latitude)
  const lon = flags.longitude === undefined ? undefined : Number(flags.longitude)
  if ((lat === undefined) !== (lon === undefined)) usageError('--latitude and --longitude go together')
  if (lat !== undefined && !(Number.isFinite(lat) && lat >= -90 && lat <= 90))
    usageError(`--latitude: expected a number from -90 to 90, not ${JSON.stringify(flags.latitude)}`)
  if (lon !== undefined && !(Number.isFinite(lon) && lon >= -180 && lon <= 180))
    usageError(`--longitude: expected a number from -180 to 180, not ${JSON.stringify(flags.longitude)}`)
}

/** `Z`, `+02:00`, `-0530`, `+2` → its designator as Camtrap DP writes it and its minutes east of UTC. */
function utcOffset(text: string): { suffix: string; minutes: number } {
  if (/^(z|utc|\+?0+(:?0+)?)$/i.test(text)) return { suffix: 'Z', minutes: 0 }
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(text.trim())
  if (!m || Number(m[2]) > 14 || Number(m[3] ?? 0) > 59)
    usageError(`--utc-offset: expected Z or ±hh:mm (e.g. +02:00), not ${JSON.stringify(text)}`)
  const minutes = (Number(m[2]) * 60 + Number(m[3] ?? 0)) * (m[1] === '-' ? -1 : 1)
  return { suffix: `${m[1]}${m[2].padStart(2, '0')}:${m[3] ?? '00'}`, minutes }
}

// ---- review status ------------------------------------------------------

/** What reviewers said of one tag: the consensus of their yes, no and unsure decisions (the most frequent, a
 * tie unsure: server/analysis/reviews.ts, docs/decisions.md §19), who said it and when last, and the class
 * named most by the `no` decisions. */
export interface TagStatus {
  consensus: 'yes' | 'no' | 'unsure'
  by: number[]
  at: string
  namedClass: number | null
}

export function reviewStatuses(reviews: readonly Review[]): Map<number, TagStatus> {
  const byTag = new Map<number, Review[]>()
  for (const r of reviews) {
    if (r.decision === 'skip') continue
    let list = byTag.get(r.tag)
    if (!list) byTag.set(r.tag, (list = []))
    list.push(r)
  }
  const out = new Map<number, TagStatus>()
  for (const [tag, list] of byTag) {
    const count = (d: string) => list.filter((r) => r.decision === d).length
    const [yes, no, unsure] = [count('yes'), count('no'), count('unsure')]
    const consensus = yes > no && yes > unsure ? 'yes' : no > yes && no > unsure ? 'no' : 'unsure'
    // those who said it; a tie (unsure without an unsure decision) is everyone's
    const said = list.filter((r) => r.decision === consensus)
    const agreeing = said.length ? said : list
    const named = new Map<number, number>()
    for (const r of list)
      if (r.decision === 'no' && r.tagClass !== null) named.set(r.tagClass, (named.get(r.tagClass) ?? 0) + 1)
    // the most named, the lowest id of equals (as PostgreSQL's mode() over the ids in order)
    const namedClass = [...named].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? null
    out.set(tag, {
      consensus,
      by: [...new Set(agreeing.map((r) => r.user))],
      at:
        agreeing
          .map((r) => r.creationDate)
          .sort()
          .at(-1) ?? '',
      namedClass,
    })
  }
  return out
}

// ---- times --------------------------------------------------------------

/** mas's timestamps are clock times without a zone (docs/decisions.md §2): a recording's start is the recorder's
 * clock, written with --utc-offset; the server's own stamps (tags, decisions) with this computer's offset. */
const NO_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/

/** A clock time as milliseconds of the same wall clock read as UTC, or undefined. */
function wallClock(text: string | null | undefined): number | undefined {
  if (!text) return undefined
  const ms = Date.parse(NO_ZONE.test(text) ? `${text}Z` : text)
  return Number.isFinite(ms) ? ms : undefined
}

const secondsText = (ms: number) => new Date(ms).toISOString().slice(0, 19)

const DAY_MS = 86_400_000
/** two-digit texts of 0–59 */
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'))
/** each day's `YYYY-MM-DDT`, remembered: a season spans a few hundred days */
const days = new Map<number, string | null>()

/** secondsText of a whole second (ms a multiple of 1,000), made from its day's text and its time of day: the
 * seconds of a season's tags are nearly all distinct, so remembering each was a miss and a string a tag. */
function secondText(ms: number): string {
  const day = Math.floor(ms / DAY_MS)
  let prefix = days.get(day)
  if (prefix === undefined) {
    const text = new Date(day * DAY_MS).toISOString()
    // years outside 0000–9999 are written with a sign and six digits
    days.set(day, (prefix = /^\d{4}-/.test(text) ? text.slice(0, 11) : null))
  }
  if (prefix === null) return secondsText(ms)
  const second = (ms - day * DAY_MS) / 1000
  const minute = Math.floor(second / 60)
  return `${prefix}${TWO_DIGITS[Math.floor(minute / 60)]}:${TWO_DIGITS[minute % 60]}:${TWO_DIGITS[second % 60]}`
}

/** stamp(), remembered: tags imported or made by one job share a few creation times. */
const stamps = new Map<string, string>()
function stamp(text: string | undefined): string {
  if (!text) return ''
  let out = stamps.get(text)
  if (out === undefined) {
    if (stamps.size >= 100_000) stamps.clear()
    stamps.set(text, (out = stampOf(text)))
  }
  return out
}

/** A server stamp (local time of the server, taken as this computer's) with its offset, whole seconds. */
function stampOf(text: string | undefined): string {
  const ms = wallClock(text)
  if (ms === undefined) return ''
  const minutes = -new Date(ms).getTimezoneOffset()
  if (!NO_ZONE.test(text!)) return `${secondsText(ms)}Z`
  return (
    secondsText(ms) +
    (minutes === 0
      ? 'Z'
      : `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`)
  )
}

// ---- the package --------------------------------------------------------

export interface CamtrapExport {
  api: ApiClient
  tagSet: FoundTagSet
  flags: CamtrapFlags
  /** the caller's username (user lists name the caller `me`) */
  me?: string
  /** mas's version, written as the package's source */
  version: string
  onCount?: (count: number) => void
  onPage?: (rows: number) => void
}

export interface CamtrapSummary {
  path: string
  deployments: number
  media: number
  observations: number
  tags: number
  unlocated: number
}

interface Deployment {
  id: string
  name: string
  sensor: number | null
  lat?: number
  lon?: number
  start?: number
  end?: number
}
interface Recording {
  file: RavenFile
  deployment: Deployment
  /** its observations' deploymentID and mediaID cells */
  cells: string
  wall?: number
  latitude?: number
  longitude?: number
  bitDepth?: number
  mediatype: string
}

/** Writes the package into `flags.output` (new, or an empty folder): into a folder beside it first, renamed to
 * its place when complete, so a failed export leaves nothing behind. */
export async function writeCamtrapDp(x: CamtrapExport): Promise<CamtrapSummary> {
  const target = resolve(x.flags.output!)
  const existing = await readdir(target).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined
    if (e.code === 'ENOTDIR') failure(`-o ${x.flags.output}: it is a file; give a new or empty folder`)
    throw e
  })
  if (existing && existing.length)
    failure(
      `-o ${x.flags.output}: the folder is not empty (${existing.length} entr${existing.length === 1 ? 'y' : 'ies'}); give a new or empty folder`,
    )
  await mkdir(dirname(target), { recursive: true })
  const work = await mkdtemp(join(dirname(target), `.${basename(target)}.partial-`))
  try {
    const summary = await writeInto(work, x)
    if (existing) await rmdir(target)
    await rename(work, target)
    return { ...summary, path: target }
  } catch (e) {
    await rm(work, { recursive: true, force: true })
    throw e
  }
}

async function writeInto(dir: string, x: CamtrapExport): Promise<Omit<CamtrapSummary, 'path'>> {
  const { api, tagSet, flags } = x
  const library = tagSet.library ?? undefined
  const offset = utcOffset(flags['utc-offset'] ?? 'Z')
  const { contentTypeOf } = await import('../server/media/facts.js')
  const [names, libraryFiles, reviews] = await Promise.all([
    loadNames(api, [USERS, SENSORS, TAG_CLASSES], { library }),
    // a season's recordings are tens of pages, a few asked at once (PAGES_AHEAD); its decisions one answer from a mas
    // server, and from another a hundred pages and more, a few at once too
    library ? api.all(`library/${library}/mediaFiles/`, {}, undefined, undefined, PAGES_AHEAD) : Promise.resolve([]),
    tagSetReviews(api, tagSet.id, PAGES_AHEAD),
  ])
  const userName = (id: number) => {
    const n = names.of(USERS, id)
    return String(n === 'me' ? (x.me ?? id) : n)
  }
  const statuses = reviewStatuses(reviews)

  // deployments: one per sequence of recordings (src/raven.ts): a sensor's, or a folder's where there is no sensor
  const deployments = new Map<string, Deployment>()
  const deploymentOf = (f: RavenFile): Deployment => {
    const folder = f.alias
      .split(/[\\/]+/)
      .slice(0, -1)
      .join('/')
    const id = f.sensor != null ? `sensor:${f.sensor}` : `folder:${folder || '.'}`
    let d = deployments.get(id)
    if (!d) {
      const name = f.sensor != null ? String(names.of(SENSORS, f.sensor)) : folder || '.'
      deployments.set(
        id,
        (d = {
          id,
          name: f.sensor != null && name === String(f.sensor) ? `sensor ${f.sensor}` : name,
          sensor: f.sensor ?? null,
        }),
      )
    }
    return d
  }
  const recordings = new Map<number, Recording>()
  const addRecording = (m: MediaFile) => {
    const file = ravenFile(m)
    const meta = (name: string) => {
      const v = m.mediafilemetadata_set?.find((d) => d.name.toLowerCase() === name)?.value
      return v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined
    }
    const deployment = deploymentOf(file)
    const r: Recording = {
      file,
      deployment,
      cells: `${csvField(deployment.id)},${file.id}`,
      wall: wallClock(file.realStartTime),
      latitude: meta('latitude'),
      longitude: meta('longitude'),
      bitDepth: meta('bitspersample'),
      mediatype: contentTypeOf(m.file ?? file.alias).replace(/;.*/, ''),
    }
    recordings.set(file.id, r)
    return r
  }
  for (const m of libraryFiles) addRecording(m)

  const classes = new Map<number, string>()
  const className = (id: number) => classes.get(id) ?? String(names.of(TAG_CLASSES, id))
  const classKnown = (id: number) => {
    if (classes.has(id)) return true
    const name = names.of(TAG_CLASSES, id)
    if (name === id) return false
    classes.set(id, String(name))
    return true
  }
  /** the recordings and classes of tags outside the tag set's library, each read once */
  const readOthers = async (tags: readonly TagRecord[]) => {
    const media = new Set<number>()
    const tagClasses = new Set<number>()
    for (const t of tags) {
      const file = Number(t.mediaFile)
      if (!recordings.has(file)) media.add(file)
      const tagClass = Number(t.tagClass)
      if (!classKnown(tagClass)) tagClasses.add(tagClass)
      const named = statuses.get(Number(t.id))?.namedClass
      if (named != null && !classKnown(named)) tagClasses.add(named)
    }
    if (!media.size && !tagClasses.size) return
    await Promise.all([
      mapLimit([...media], 8, async (id) => addRecording(await readable(api, `mediaFile/${id}/`, 'media file'))),
      mapLimit([...tagClasses], 8, async (id) => {
        classes.set(id, (await readable(api, `tagClass/${id}/`, 'tag class')).className)
      }),
    ])
  }

  const observations = createWriteStream(join(dir, 'observations.csv'))
  const out = new TextWriter((bytes) => put(observations, bytes))
  const cells = sharedCells(className, userName, offset.suffix, provenanceCells())
  const taxa = new Set<string>()
  let rows = 0
  let tagCount = 0
  try {
    await put(observations, [...OBSERVATION_COLUMNS, ...OBSERVATION_EXTENSIONS].join(',') + '\n')
    for await (const page of tagSetTagPages<TagRecord>(api, tagSet.id, x.onCount, OBSERVATION_FIELDS)) {
      tagCount += page.length
      await readOthers(page)
      for (const tag of page) {
        const status = statuses.get(Number(tag.id))
        if (flags['reviewed-only'] && status?.consensus !== 'yes') continue
        const row = observationRow(tag, status, recordings.get(Number(tag.mediaFile))!, cells)
        if (row.taxon) taxa.add(row.taxon)
        out.append(row.text)
        rows++
      }
      x.onPage?.(page.length)
      await out.drain()
    }
    await out.drain(true)
  } finally {
    observations.end()
    await once(observations, 'close')
  }

  // the deployments' extents and places, from their recordings
  const fallback =
    flags.latitude !== undefined ? { lat: Number(flags.latitude), lon: Number(flags.longitude) } : undefined
  for (const r of recordings.values()) {
    const d = r.deployment
    if (d.lat === undefined && r.latitude !== undefined && r.longitude !== undefined) {
      d.lat = r.latitude
      d.lon = r.longitude
    }
    if (r.wall === undefined) continue
    const end = r.wall + (r.file.duration ?? 0) * 1000
    d.start = Math.min(d.start ?? Infinity, Math.floor(r.wall / 1000) * 1000)
    d.end = Math.max(d.end ?? -Infinity, Math.ceil(end / 1000) * 1000)
  }
  let unlocated = 0
  for (const d of deployments.values()) {
    if (d.lat === undefined && fallback) {
      d.lat = fallback.lat
      d.lon = fallback.lon
    }
    if (d.lat === undefined) unlocated++
  }
  const time = (ms: number | undefined) => (ms === undefined ? '' : secondsText(ms) + offset.suffix)
  const sortedDeployments = [...deployments.values()].sort(
    (a, b) => (a.start ?? Infinity) - (b.start ?? Infinity) || (a.id < b.id ? -1 : 1),
  )
  await writeFile(
    join(dir, 'deployments.csv'),
    csvTable(
      DEPLOYMENT_COLUMNS,
      [],
      sortedDeployments.map((d) => ({
        deploymentID: d.id,
        locationName: d.name,
        latitude: d.lat,
        longitude: d.lon,
        deploymentStart: time(d.start),
        deploymentEnd: time(d.end),
        cameraID: d.sensor ?? undefined,
        deploymentComments: d.lat === undefined ? `no location in mas: ${MISSING_LOCATION}` : undefined,
      })),
    ),
  )
  const sortedRecordings = [...recordings.values()].sort(
    (a, b) => (a.wall ?? Infinity) - (b.wall ?? Infinity) || a.file.id - b.file.id,
  )
  await writeFile(
    join(dir, 'media.csv'),
    csvTable(
      MEDIA_COLUMNS,
      MEDIA_EXTENSIONS,
      sortedRecordings.map((r) => ({
        mediaID: r.file.id,
        deploymentID: r.deployment.id,
        captureMethod: 'timeLapse',
        timestamp: time(r.wall === undefined ? undefined : Math.floor(r.wall / 1000) * 1000),
        filePath: r.file.alias,
        filePublic: 'false',
        fileName: r.file.alias.split(/[\\/]/).at(-1),
        fileMediatype: r.mediatype,
        samplingFrequency: r.file.sampleRate,
        bitDepth: r.bitDepth,
        duration: r.file.duration,
      })),
    ),
  )
  await writeFile(
    join(dir, 'datapackage.json'),
    JSON.stringify(descriptor(x, sortedDeployments, [...taxa].sort(), reviews, userName), null, 2) + '\n',
  )
  return { deployments: deployments.size, media: recordings.size, observations: rows, tags: tagCount, unlocated }
}

async function readable<P extends RecordPath>(api: ApiClient, path: P, kind: string): Promise<RecordAt<P>> {
  try {
    return await api.get(path)
  } catch (e) {
    if (e instanceof ApiError && (e.status === 403 || e.status === 404))
      failure(`a tag is on a ${kind} you cannot read (${path}): the package needs it, so nothing was written`)
    throw e
  }
}

async function put(stream: WriteStream, text: string | Buffer): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain')
}

function csvTable(
  columns: readonly string[],
  extensions: readonly string[],
  rows: Array<Record<string, unknown>>,
): string {
  const all = [...columns, ...extensions]
  return [all.join(','), ...rows.map((r) => all.map((c) => csvField(r[c])).join(','))].join('\n') + '\n'
}

/** The pages of the recordings' list (and of the decisions' where they are paged) asked for at once: each page waits
 * on the server's count and offset, so a few at once keep both of its parts busy (BENCHMARKS.md). */
const PAGES_AHEAD = 4

/** What an observation (observationRow) and the recordings and classes it names (readOthers) read of a tag. */
const OBSERVATION_FIELDS = [
  'id',
  'user',
  'creationDate',
  ...CSV_COLUMNS,
  'machineTagged',
  'userTagged',
  'provenance',
] as const

/** The cells many observations share, each made once: a class's name and its cell, a person's name and cell, a
 * machine's name as classifiedBy's cell, the time zone's suffix, a provenance's cell. */
interface SharedCells {
  className(id: number): string
  classCell(id: number): string
  userName(id: number): string
  userCell(id: number): string
  machineCell(provenance: Record<string, unknown> | undefined): string
  suffix: string
  provenanceCell(provenance: unknown): string
}

/** SharedCells over the names of classes and people, each cell remembered. */
function sharedCells(
  className: (id: number) => string,
  userName: (id: number) => string,
  suffix: string,
  provenanceCell: (provenance: unknown) => string,
): SharedCells {
  const classCells = new Map<number, string>()
  const userCells = new Map<number, string>()
  // the tags of one detector share their provenance, parsed once (src/ndjson.ts): the same object tag after tag
  let lastProvenance: Record<string, unknown> | undefined
  let lastMachine = csvField(machineName(undefined))
  return {
    className,
    userName,
    classCell: (id) => {
      let cell = classCells.get(id)
      if (cell === undefined) classCells.set(id, (cell = csvField(className(id))))
      return cell
    },
    userCell: (id) => {
      let cell = userCells.get(id)
      if (cell === undefined) userCells.set(id, (cell = csvField(userName(id))))
      return cell
    },
    machineCell: (provenance) => {
      if (provenance !== lastProvenance) {
        lastProvenance = provenance
        lastMachine = csvField(machineName(provenance))
      }
      return lastMachine
    },
    suffix,
    provenanceCell,
  }
}

/** One tag as an observation (docs/decisions.md §33): the review's consensus decides its type, class and who
 * classified it; a tag nobody decided is its maker's word (a machine's or a person's). */
function observationRow(
  tag: TagRecord,
  status: TagStatus | undefined,
  r: Recording,
  cells: SharedCells,
): { text: string; taxon?: string } {
  const tagClass = Number(tag.tagClass)
  const start = Number(tag.startTime)
  const end = Number(tag.endTime)
  // mas stores a tag without a score (a label, Kaleidoscope's clusters) with the strength 0, and one without a band
  // with the band 0–0: those are no strength and no band here, not a certainty of 0 (docs/decisions.md §33)
  const strength =
    typeof tag.strength === 'number' && Number.isFinite(tag.strength) && tag.strength !== 0 ? tag.strength : undefined
  const banded = Number(tag.minFrequency) !== 0 || Number(tag.maxFrequency) !== 0
  const provenance = tag.provenance && typeof tag.provenance === 'object' ? tag.provenance : undefined
  const machine = tag.machineTagged === true || (provenance !== undefined && tag.userTagged !== true)
  let type = 'animal'
  let taxon: string | undefined = cells.className(tagClass)
  let taxonCell = cells.classCell(tagClass)
  let method: string
  let byCell: string
  let at: string
  let probability: number | undefined
  if (status) {
    method = 'human'
    byCell = csvField(status.by.map(cells.userName).join(' | '))
    at = stamp(status.at)
    if (status.consensus === 'unsure') {
      type = 'unknown'
      taxon = undefined
      taxonCell = ''
    } else if (status.consensus === 'no') {
      if (status.namedClass !== null) {
        taxon = cells.className(status.namedClass)
        taxonCell = cells.classCell(status.namedClass)
      } else {
        type = 'blank'
        taxon = undefined
        taxonCell = ''
      }
    }
  } else {
    method = machine ? 'machine' : 'human'
    byCell = machine
      ? cells.machineCell(provenance)
      : tag.user !== undefined && tag.user !== null
        ? cells.userCell(Number(tag.user))
        : ''
    at = stamp(typeof tag.creationDate === 'string' ? tag.creationDate : undefined)
    if (machine && strength !== undefined && strength >= 0 && strength <= 1) probability = strength
  }
  let eventStart = ''
  let eventEnd = ''
  if (r.wall !== undefined) {
    eventStart = secondText(Math.floor((r.wall + start * 1000) / 1000) * 1000) + cells.suffix
    eventEnd = secondText(Math.ceil((r.wall + end * 1000) / 1000) * 1000) + cells.suffix
  }
  const text =
    `${tag.id},${r.cells},,${eventStart},${eventEnd},media,${type},,${taxonCell},,,,,,,,,,,,,` +
    `${method},${byCell},${at},${probability ?? ''},,` +
    `,${banded ? num(tag.minFrequency) : ''},${banded ? num(tag.maxFrequency) : ''},${num(start)},${num(end)},${strength ?? ''},${status?.consensus ?? 'unreviewed'}` +
    `,${cells.classCell(tagClass)},${cells.provenanceCell(provenance)}\n`
  return { text, taxon }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '')

/** A machine's name as classifiedBy: its provenance's source and version (docs/decisions.md §26). */
function machineName(p: Record<string, unknown> | undefined): string {
  if (!p) return 'machine'
  const source = typeof p.source === 'string' ? p.source : 'machine'
  return typeof p.version === 'string' || typeof p.version === 'number' ? `${source} ${p.version}` : source
}

/** datapackage.json: the Camtrap DP profile's required metadata, from what mas knows; what it cannot know (the
 * project's sampling design, licences) is left at a neutral value for the publisher to edit (§33). */
function descriptor(
  x: CamtrapExport,
  deployments: readonly Deployment[],
  taxa: readonly string[],
  reviews: readonly Review[],
  userName: (id: number) => string,
): Record<string, unknown> {
  const created = new Date()
  const located = deployments.filter((d) => d.lat !== undefined && d.lon !== undefined)
  const lats = located.map((d) => d.lat!)
  const lons = located.map((d) => d.lon!)
  const spatial = !located.length
    ? { type: 'GeometryCollection', geometries: [] }
    : Math.min(...lats) === Math.max(...lats) && Math.min(...lons) === Math.max(...lons)
      ? { type: 'Point', coordinates: [lons[0], lats[0]] }
      : {
          type: 'Polygon',
          coordinates: [
            [
              [Math.min(...lons), Math.min(...lats)],
              [Math.max(...lons), Math.min(...lats)],
              [Math.max(...lons), Math.max(...lats)],
              [Math.min(...lons), Math.max(...lats)],
              [Math.min(...lons), Math.min(...lats)],
            ],
          ],
        }
  const starts = deployments.flatMap((d) => (d.start === undefined ? [] : [d.start]))
  const ends = deployments.flatMap((d) => (d.end === undefined ? [] : [d.end]))
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const reviewers = [...new Set(reviews.filter((r) => r.decision !== 'skip').map((r) => userName(r.user)))]
    .filter((n) => n !== x.me)
    .sort()
  const resource = (name: string) => ({
    name,
    path: `${name}.csv`,
    profile: 'tabular-data-resource',
    format: 'csv',
    mediatype: 'text/csv',
    encoding: 'utf-8',
    schema: `${SCHEMA_BASE}/${name}-table-schema.json`,
  })
  return {
    resources: [resource('deployments'), resource('media'), resource('observations')],
    profile: `${SCHEMA_BASE}/camtrap-dp-profile.json`,
    name: packageName(x.tagSet.name),
    created: `${created.toISOString().slice(0, 19)}Z`,
    title: `Tag set ${x.tagSet.name}`,
    // the package needs one at least: the caller, else the tag set's owner
    contributors: [
      {
        title: x.me ?? (x.tagSet.user !== undefined ? userName(x.tagSet.user) : `tag set ${x.tagSet.id}`),
        role: 'contact',
      },
      ...reviewers.map((title) => ({ title, role: 'contributor' })),
    ],
    sources: [{ title: 'mas', version: x.version }],
    project: {
      id: String(x.tagSet.id),
      title: x.tagSet.name,
      samplingDesign: 'opportunistic',
      captureMethod: ['timeLapse'],
      individualAnimals: false,
      observationLevel: ['media'],
    },
    spatial,
    temporal: {
      start: day(starts.length ? Math.min(...starts) : created.getTime()),
      end: day(ends.length ? Math.max(...ends) : created.getTime()),
    },
    taxonomic: taxa.map((scientificName) => ({ scientificName })),
  }
}

/** A Data Package name: lower case letters, digits and -._/ (the tag set's name, its other characters as -). */
function packageName(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^-a-z0-9._/]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'tag-set'
  )
}

/** What `mas tag export --help` says of the format. */
export const CAMTRAP_DP_HELP = `--format camtrap-dp -o DIR writes a Camtrap DP ${CAMTRAP_DP_VERSION} data package (the route to GBIF) into DIR, a new or empty folder: datapackage.json, deployments.csv (one per sensor, or per folder of recordings without one), media.csv (one row per recording) and observations.csv (one per tag, with its review status: --reviewed-only keeps the tags reviewers confirmed). Acoustic terms proposed for Camtrap DP are extension columns after the standard ones (README, "Camtrap DP packages"). Recording times are the recorders' clocks: --utc-offset says their offset from UTC (default UTC). A deployment's place is the latitude and longitude metadata of its recordings, else --latitude/--longitude.`

/** The line printed after a package is written. */
export function camtrapSummaryLine(s: CamtrapSummary): string {
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
  const missing = s.unlocated
    ? `; ${plural(s.unlocated, 'deployment')} without a location (${MISSING_LOCATION}: give --latitude and --longitude or set them as the recordings' metadata)`
    : ''
  return `wrote ${s.path}: ${plural(s.observations, 'observation')} of ${plural(s.tags, 'tag')}, ${plural(s.media, 'recording')}, ${plural(s.deployments, 'deployment')}${missing}`
}
