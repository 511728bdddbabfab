import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { audioInMemory } from '../server/analysis/audioSource.js'
import { SUPERVISED_TAG_DISCOVERY } from '../server/analysis/catalog.js'
import { iou, matchInOrder, type Span } from '../server/analysis/evaluation.js'
import { wavOf } from '../test/helpers/signals.js'
import { resampled, sharedDataDir } from './discoveryData.js'
import { median } from './median.js'

// Few-shot discovery within a recording (`npm run bench:discovery -- --only fewshot`, `npm run test:discovery`),
// the project's benchmark definition: for each recording of a set and each class in it, the first
// N = min(5, calls − 1) labelled calls of that class are the examples (their own time and frequency bounds, a
// source tag set of their own); SupervisedTagDiscovery runs over that recording alone, with the examples'
// median length as its window and 3 tags per call left to find, at the default minimumStrength. The scorer,
// not the server, merges overlapping tags into their union (the strongest strength), counts only tags that
// start at or after the last example's end, and matches a tag to a later call of the class when their time
// intersection over union is at least 0.3 (strongest tags first, each call once). TP, FP and FN are pooled
// over a set's recordings and classes, at each recording's own sample rate and resampled to 48,000 Hz.

/** The sets of the shared data measured this way, each a folder with labels.csv and recordings/*.wav. */
export const FEW_SHOT_SETS = [
  'warblers_vermont_monitoR',
  'spinetail_colombia_maad',
  'longbilled_hermit_ohun',
  'frogs_physalaemus_soundshape',
] as const

/** A recording's own sample rate, or the rate it is resampled to. */
export type Rate = 'own' | number
export const FEW_SHOT_RATES: readonly Rate[] = ['own', 48000]

const MAX_EXAMPLES = 5
const IOU_TO_MATCH = 0.3
const TAGS_PER_CALL = 3
/** the protocol's least window; the job type's declared minimum wins when it is larger */
const LEAST_WINDOW = 0.001

export { iou, type Span }
export interface LabelledCall extends Span {
  file: string
  lowHz: number
  highHz: number
  label: string
}
export interface Recording {
  name: string
  bytes: Buffer
  samples: Float32Array
  sampleRate: number
  calls: LabelledCall[]
}
export interface FewShotSet {
  name: string
  recordings: Recording[]
}

/** A set's labels (file,start_s,end_s,low_hz,high_hz,label) and its recordings, decoded. */
export async function loadFewShotSet(dir: string, name: string): Promise<FewShotSet> {
  const calls: LabelledCall[] = []
  const [header, ...lines] = readFileSync(join(dir, 'labels.csv'), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim())
  if (header.trim() !== 'file,start_s,end_s,low_hz,high_hz,label')
    throw new Error(`${name}/labels.csv: unexpected header ${header}`)
  for (const line of lines) {
    const [file, start, end, low, high, ...label] = line.split(',')
    calls.push({
      file,
      start: Number(start),
      end: Number(end),
      lowHz: Number(low),
      highHz: Number(high),
      label: label.join(',').trim(),
    })
  }
  const recordings: Recording[] = []
  for (const file of readdirSync(join(dir, 'recordings'))
    .filter((n) => n.toLowerCase().endsWith('.wav'))
    .sort()) {
    const bytes = readFileSync(join(dir, 'recordings', file))
    const source = await audioInMemory(bytes)
    const samples = new Float32Array(source.info.frames)
    for await (const c of source.chunks()) samples.set(c.samples, c.start)
    recordings.push({
      name: file,
      bytes,
      samples,
      sampleRate: source.info.sampleRate,
      calls: calls.filter((c) => c.file === file),
    })
  }
  const unknown = calls.filter((c) => !recordings.some((r) => r.name === c.file))
  if (unknown.length)
    throw new Error(
      `${name}/labels.csv names recordings not in recordings/: ${[...new Set(unknown.map((c) => c.file))].join(', ')}`,
    )
  return { name, recordings }
}

/** Every few-shot set, found as sharedDataDir finds it; a set not found is an error naming where it was looked for. */
export async function loadFewShotSets(): Promise<FewShotSet[]> {
  const sets: FewShotSet[] = []
  for (const name of FEW_SHOT_SETS) {
    const found = sharedDataDir(name)
    if ('error' in found) throw new Error(found.error)
    sets.push(await loadFewShotSet(found.dir, name))
  }
  return sets
}

/** One recording × class to judge: its examples and the calls after them. */
export interface Episode {
  recording: string
  label: string
  examples: LabelledCall[]
  /** the calls of the class starting at or after the last example's end */
  toFind: LabelledCall[]
  /** the last example's end: tags starting before it are not counted */
  after: number
}

/** A recording × class with nothing to find, and why. */
export interface Skipped {
  recording: string
  label: string
  calls: number
  reason: string
}

/** The episodes of a recording, one per class with at least 2 calls; the other classes skipped. */
export function episodesOf(recording: Recording): { episodes: Episode[]; skipped: Skipped[] } {
  const episodes: Episode[] = [],
    skipped: Skipped[] = []
  const labels = [...new Set(recording.calls.map((c) => c.label))].sort()
  for (const label of labels) {
    const calls = recording.calls.filter((c) => c.label === label).sort((a, b) => a.start - b.start || a.end - b.end)
    if (calls.length < 2) {
      skipped.push({ recording: recording.name, label, calls: calls.length, reason: 'fewer than 2 calls' })
      continue
    }
    const examples = calls.slice(0, Math.min(MAX_EXAMPLES, calls.length - 1))
    const after = examples[examples.length - 1].end
    const toFind = calls.slice(examples.length).filter((c) => c.start >= after)
    if (!toFind.length) {
      skipped.push({
        recording: recording.name,
        label,
        calls: calls.length,
        reason: 'no call starts after the last example ends',
      })
      continue
    }
    episodes.push({ recording: recording.name, label, examples, toFind, after })
  }
  return { episodes, skipped }
}

/** The examples' median length, at least the protocol's least window and the job type's declared minimum. */
export function windowOf(examples: Span[]): number {
  return Math.max(
    median(examples.map((e) => e.end - e.start)),
    LEAST_WINDOW,
    SUPERVISED_TAG_DISCOVERY.params.windowSizeInSeconds.min ?? 0,
  )
}

export interface FoundTag extends Span {
  strength: number
}

/** Tags that overlap (share some time) merged, one after another, into one tag spanning their union with the strongest strength. */
export function mergeOverlapping(tags: FoundTag[]): FoundTag[] {
  const merged: FoundTag[] = []
  for (const t of [...tags].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1]
    if (last && t.start < last.end) {
      last.end = Math.max(last.end, t.end)
      last.strength = Math.max(last.strength, t.strength)
    } else merged.push({ start: t.start, end: t.end, strength: t.strength })
  }
  return merged
}

export interface Counts {
  counted: number
  tp: number
  fp: number
  fn: number
}

/**
 * The scorer: the tags merged, those starting before `after` left out, then strongest first each matched to
 * the unmatched call it has the highest IoU with, if that is at least 0.3.
 */
export function score(tags: FoundTag[], calls: Span[], after: number): Counts {
  const counted = mergeOverlapping(tags)
    .filter((t) => t.start >= after)
    .sort((a, b) => b.strength - a.strength || a.start - b.start)
  const tp = matchInOrder(counted, calls, IOU_TO_MATCH).filter((call) => call >= 0).length
  return { counted: counted.length, tp, fp: counted.length - tp, fn: calls.length - tp }
}

export function precisionRecallF({ tp, fp, fn }: Counts): { p: number; r: number; f: number } {
  const p = tp + fp ? tp / (tp + fp) : 0
  const r = tp + fn ? tp / (tp + fn) : 0
  return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 }
}

/** How a run reaches a server: JSON calls by path (/api/v0/...), and a WAV imported into a library (its media file id). */
export interface FewShotClient {
  api(method: string, path: string, body?: unknown): Promise<any>
  upload(library: number, name: string, wav: Buffer): Promise<number>
}

export interface EpisodeResult extends Counts {
  recording: string
  label: string
  examples: number
  toFind: number
  window: number
}

export interface SetResult {
  set: string
  rate: Rate
  /** the recordings' own rates */
  ownRates: number[]
  recordings: number
  episodes: EpisodeResult[]
  skipped: Skipped[]
  total: Counts & { examples: number; toFind: number }
}

/** The bytes of a recording at `rate`: its own file, or its samples resampled into a 16-bit WAV. */
export function wavAt(recording: Recording, rate: Rate): Buffer {
  if (rate === 'own' || rate === recording.sampleRate) return recording.bytes
  return wavOf(resampled(recording.samples, recording.sampleRate, rate), rate)
}

const COMPLETE = 6,
  ERROR = 4,
  STOPPED = 5

async function jobEnded(client: FewShotClient, id: number): Promise<void> {
  for (;;) {
    const j = await client.api('GET', `/api/v0/jobs/${id}/`)
    if (j.status === COMPLETE) return
    if (j.status === ERROR || j.status === STOPPED) throw new Error(`job ${id} ended in status ${j.status}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function tagsOf(client: FewShotClient, tagSet: number): Promise<FoundTag[]> {
  const tags: FoundTag[] = []
  for (let page = 1; ; page++) {
    const r = await client.api('GET', `/api/v0/tag/?tagSet=${tagSet}&page=${page}&page_size=1000`)
    tags.push(
      ...(r.results as Array<{ startTime: number; endTime: number; strength: number }>).map((t) => ({
        start: t.startTime,
        end: t.endTime,
        strength: t.strength,
      })),
    )
    if (!r.next) break
  }
  return tags
}

/**
 * A whole set at one rate, through the API: a library of its own, each recording imported once, a tag class per
 * label, and per recording × class a source tag set with the examples, a discovery job over that recording
 * alone (mediaFileId) into a fresh tag set, and its tags scored. The jobs are queued together.
 */
export async function runFewShotSet(client: FewShotClient, set: FewShotSet, rate: Rate): Promise<SetResult> {
  const rateName = rate === 'own' ? 'own rate' : `${rate} Hz`
  const library = (await client.api('POST', '/api/v0/library/', { name: `few-shot ${set.name} ${rateName}` }))
    .id as number
  const classes = new Map<string, number>()
  for (const label of [...new Set(set.recordings.flatMap((r) => r.calls.map((c) => c.label)))].sort()) {
    classes.set(
      label,
      (await client.api('POST', '/api/v0/tagClass/', { className: label, displayName: label, library })).id,
    )
  }
  const skipped: Skipped[] = []
  const runs: Array<{ episode: Episode; window: number; destination: number; job: number }> = []
  for (const recording of set.recordings) {
    const { episodes, skipped: none } = episodesOf(recording)
    skipped.push(...none)
    const mediaFile = await client.upload(library, `${rateName}/${recording.name}`, wavAt(recording, rate))
    for (const episode of episodes) {
      const name = `${recording.name} ${episode.label} ${rateName}`
      const source = (await client.api('POST', '/api/v0/tagSet/', { name: `examples: ${name}`, library })).id as number
      await client.api(
        'POST',
        '/api/v0/tag/',
        episode.examples.map((e) => ({
          tagSet: source,
          mediaFile,
          tagClass: classes.get(episode.label),
          startTime: e.start,
          endTime: e.end,
          minFrequency: e.lowHz,
          maxFrequency: e.highHz,
        })),
      )
      const destination = (await client.api('POST', '/api/v0/tagSet/', { name: `found: ${name}`, library }))
        .id as number
      const window = windowOf(episode.examples)
      const job = (
        await client.api('POST', '/api/v0/jobs/', {
          name: `few-shot ${name}`,
          type: SUPERVISED_TAG_DISCOVERY.id,
          parameters: {
            sourceTagSet: String(source),
            destinationTagSet: String(destination),
            mediaFileId: String(mediaFile),
            windowSizeInSeconds: String(window),
            numberOfTagsToDiscover: String(TAGS_PER_CALL * episode.toFind.length),
          },
        })
      ).id as number
      runs.push({ episode, window, destination, job })
    }
  }
  const episodes: EpisodeResult[] = []
  for (const { episode, window, destination, job } of runs) {
    await jobEnded(client, job)
    const counts = score(await tagsOf(client, destination), episode.toFind, episode.after)
    episodes.push({
      recording: episode.recording,
      label: episode.label,
      examples: episode.examples.length,
      toFind: episode.toFind.length,
      window,
      ...counts,
    })
  }
  const sum = (key: keyof Counts | 'examples' | 'toFind') => episodes.reduce((s, e) => s + e[key], 0)
  return {
    set: set.name,
    rate,
    ownRates: [...new Set(set.recordings.map((r) => r.sampleRate))],
    recordings: set.recordings.length,
    episodes,
    skipped,
    total: {
      examples: sum('examples'),
      toFind: sum('toFind'),
      counted: sum('counted'),
      tp: sum('tp'),
      fp: sum('fp'),
      fn: sum('fn'),
    },
  }
}

/** A set is judged when at least one of its classes had calls to find. */
export const judged = (r: SetResult) => r.episodes.length > 0

const rateLabel = (r: SetResult) => (r.rate === 'own' ? `${r.ownRates.join('/')} (own)` : String(r.rate))

/** The table of the sets × rates, one line each, with its heading. */
export function fewShotTable(results: SetResult[]): string[] {
  const head = ['set', 'rate', 'recs', 'classes', 'examples', 'to find', 'counted', 'TP', 'FP', 'FN', 'P', 'R', 'F']
  const rows = results.map((r) => {
    const base = [r.set, rateLabel(r), String(r.recordings)]
    if (!judged(r)) return [...base, '0', '-', '-', '-', '-', '-', '-', 'reported, not judged', '', '']
    const { p, r: recall, f } = precisionRecallF(r.total)
    const t = r.total
    return [
      ...base,
      String(r.episodes.length),
      String(t.examples),
      String(t.toFind),
      String(t.counted),
      String(t.tp),
      String(t.fp),
      String(t.fn),
      p.toFixed(2),
      recall.toFixed(2),
      f.toFixed(2),
    ]
  })
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd()
  return [line(head), ...rows.map(line)]
}

/** One line per recording × class of a set at a rate (the skipped ones too), for finding out why. */
export function episodeLines(r: SetResult): string[] {
  return [
    ...r.episodes.map(
      (e) =>
        `${r.set} ${rateLabel(r)} ${e.recording} "${e.label}": ${e.examples} examples, window ${e.window.toFixed(3)} s, ` +
        `${e.toFind} to find, ${e.counted} tags counted, TP ${e.tp} FP ${e.fp} FN ${e.fn}`,
    ),
    ...r.skipped.map(
      (s) =>
        `${r.set} ${rateLabel(r)} ${s.recording} "${s.label}": ${s.calls} call${s.calls === 1 ? '' : 's'}, not judged (${s.reason})`,
    ),
  ]
}
