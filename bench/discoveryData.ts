import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import waveResampler from 'wave-resampler'
import { besideCheckout } from './beside.js'
import { audioInMemory } from '../server/analysis/audioSource.js'
import { powerSpectrum } from '../server/analysis/fft.js'
import { seededRandom } from '../server/analysis/random.js'

// The labelled field recordings discovery is measured on (`npm run bench:discovery`, `npm run test:discovery`):
// each set a folder of the shared data (sharedDataDir). From the hidden-call set (qut-currawong): the training
// clips and their labelled calls, and "hidden-call" files, each the clips without a call in a random order
// with one clip with a call put among them, as a call sits in a recorder's file. The few-shot sets are read
// by fewShot.ts.

export interface Clip {
  name: string
  samples: Float32Array
  sampleRate: number
  md5: string
}
export interface Labelled extends Clip {
  start: number
  end: number
}
export interface HiddenCall {
  name: string
  samples: Float32Array
  sampleRate: number
  callStart: number
  callEnd: number
  clip: string
  /** the clips it is made of, in order, with where each lies (seconds) */
  parts: Array<{ name: string; start: number; end: number }>
}

export interface DiscoveryData {
  dir: string
  train: Labelled[]
  /** clips with a call, none byte-identical to a training clip or to another */
  testTrue: Clip[]
  /** clips without a call, duplicates removed */
  testFalse: Clip[]
}

/**
 * The folder of one set of the shared labelled recordings (one holding a labels.csv), or why there is none:
 * MAS_DISCOVERY_DATA for qut-currawong; else `set` in MAS_SHARED_DATA, the folder holding every set; else
 * ../shared/data/`set` beside this checkout or beside the checkout it was cloned from.
 */
export function sharedDataDir(set: string): { dir: string } | { error: string } {
  const given = set === 'qut-currawong' ? process.env.MAS_DISCOVERY_DATA : undefined
  if (given)
    return existsSync(join(given, 'labels.csv'))
      ? { dir: given }
      : { error: `MAS_DISCOVERY_DATA=${given} holds no labels.csv` }
  const shared = process.env.MAS_SHARED_DATA
  if (shared) {
    const dir = join(shared, set)
    return existsSync(join(dir, 'labels.csv'))
      ? { dir }
      : { error: `MAS_SHARED_DATA=${shared} holds no ${set}/labels.csv` }
  }
  const candidates = besideCheckout(join('shared', 'data', set))
  const dir = candidates.find((d) => existsSync(join(d, 'labels.csv')))
  const variable = set === 'qut-currawong' ? 'MAS_DISCOVERY_DATA or MAS_SHARED_DATA' : 'MAS_SHARED_DATA'
  return dir
    ? { dir }
    : { error: `no labelled recordings ${set}: set ${variable} (looked in ${candidates.join(', ')})` }
}

/** The hidden-call data folder (qut-currawong), or why there is none. */
export const discoveryDataDir = () => sharedDataDir('qut-currawong')

async function clipOf(path: string, name: string): Promise<Clip> {
  const bytes = readFileSync(path)
  const source = await audioInMemory(bytes)
  const samples = new Float32Array(source.info.frames)
  for await (const c of source.chunks()) samples.set(c.samples, c.start)
  return { name, samples, sampleRate: source.info.sampleRate, md5: createHash('md5').update(bytes).digest('hex') }
}

async function clipsIn(dir: string): Promise<Clip[]> {
  const seen = new Set<string>()
  const out: Clip[] = []
  for (const name of readdirSync(dir)
    .filter((n) => n.toLowerCase().endsWith('.wav'))
    .sort()) {
    const clip = await clipOf(join(dir, name), name)
    if (seen.has(clip.md5)) continue
    seen.add(clip.md5)
    out.push(clip)
  }
  return out
}

export async function loadDiscoveryData(dir: string): Promise<DiscoveryData> {
  const labels = new Map<string, [number, number]>()
  for (const line of readFileSync(join(dir, 'labels.csv'), 'utf8').split(/\r?\n/).slice(1)) {
    const [file, start, end] = line.split(',')
    if (file) labels.set(file, [Number(start), Number(end)])
  }
  const train: Labelled[] = []
  for (const clip of await clipsIn(join(dir, 'train'))) {
    const span = labels.get(clip.name)
    if (span) train.push({ ...clip, start: span[0], end: span[1] })
  }
  const trained = new Set(train.map((c) => c.md5))
  return {
    dir,
    train,
    testTrue: (await clipsIn(join(dir, 'testTrue'))).filter((c) => !trained.has(c.md5)),
    testFalse: await clipsIn(join(dir, 'testFalse')),
  }
}

/** `n` hidden-call files: the testFalse clips in a random order, one testTrue clip (a different one each) put at a random place among them. */
export function hiddenCalls(data: DiscoveryData, n: number, seed: number): HiddenCall[] {
  const random = seededRandom(seed)
  const shuffled = <T>(xs: T[]) => {
    const a = [...xs]
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[a[i], a[j]] = [a[j], a[i]]
    }
    return a
  }
  const calls = shuffled(data.testTrue).slice(0, n)
  return calls.map((call, i) => {
    const parts = shuffled(data.testFalse)
    const at = Math.floor(random() * (parts.length + 1))
    parts.splice(at, 0, call)
    const samples = new Float32Array(parts.reduce((s, p) => s + p.samples.length, 0))
    let offset = 0,
      callStart = 0
    const placed: HiddenCall['parts'] = []
    for (const p of parts) {
      if (p === call) callStart = offset
      samples.set(p.samples, offset)
      placed.push({ name: p.name, start: offset / call.sampleRate, end: (offset + p.samples.length) / call.sampleRate })
      offset += p.samples.length
    }
    return {
      name: `hidden-${String(i + 1).padStart(2, '0')}.wav`,
      samples,
      sampleRate: call.sampleRate,
      callStart: callStart / call.sampleRate,
      callEnd: (callStart + call.samples.length) / call.sampleRate,
      clip: call.name,
      parts: placed,
    }
  })
}

/** The samples at another rate (windowed sinc interpolation). */
export function resampled(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return samples
  return Float32Array.from(waveResampler.resample(samples, from, to, { method: 'sinc' }) as ArrayLike<number>)
}

/**
 * The band of a labelled call, as a person would box it: around the loudest frequency of the call's
 * average spectrum, out to where it falls 15 dB below that peak.
 */
export async function callBand(clip: Labelled): Promise<[number, number]> {
  const size = 1024
  const spectrum = await powerSpectrum(size)
  const sum = new Float64Array(size / 2 + 1)
  const power = new Float64Array(size / 2 + 1)
  const from = Math.floor(clip.start * clip.sampleRate),
    to = Math.ceil(clip.end * clip.sampleRate)
  const frame = new Float32Array(size)
  for (let at = from; at + size <= Math.max(to, from + size) && at + size <= clip.samples.length; at += size / 4) {
    for (let i = 0; i < size; i++) frame[i] = clip.samples[at + i]
    spectrum(frame, power)
    for (let k = 0; k < sum.length; k++) sum[k] += power[k]
  }
  const db = Array.from(sum, (p) => 10 * Math.log10(p + 1e-12))
  const peak = db.indexOf(Math.max(...db))
  let lo = peak,
    hi = peak
  while (lo > 0 && db[lo - 1] > db[peak] - 15) lo--
  while (hi < db.length - 1 && db[hi + 1] > db[peak] - 15) hi++
  const binHz = clip.sampleRate / size
  return [Math.round(lo * binHz), Math.round(hi * binHz)]
}

/** The bodies of POST tag/ for the labelled training calls (imported as `mediaFiles`, in order): boxed around
 * each call's band (`banded`), or over the whole band. */
export async function trainingTags(
  data: DiscoveryData,
  mediaFiles: number[],
  refs: { tagSet: number; tagClass: number },
  banded: boolean,
) {
  return Promise.all(
    data.train.map(async (c, i) => {
      const [minFrequency, maxFrequency] = banded ? await callBand(c) : [0, c.sampleRate / 2]
      return { ...refs, mediaFile: mediaFiles[i], startTime: c.start, endTime: c.end, minFrequency, maxFrequency }
    }),
  )
}
