import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import * as Flags from '@oclif/core/flags'
import type { ApiClient } from './api.js'
import { usageError } from './exits.js'
import { stderr, warn, writeStdout } from './output.js'
import type { Write } from './outputFile.js'
import { perFileName, perSequenceName, ravenTable, sequencesOf, unknownLengths, type RavenFile } from './raven.js'
import type { TagRecord } from './tagFormats.js'

// How the commands that write Raven tables (`tag export`, `review export`) lay them out (docs/decisions.md §21):
// tags in one sequence of recordings make one table on stdout; in several, --per-sequence DIR writes a table per
// sequence and --per-file DIR one per recording, and without either the command exits 2, never mixing sequences.

export const ravenFlags = {
  'per-file': Flags.string({
    description: 'with --format raven or audacity: one table (label track) per recording, written below this folder',
  }),
  'per-sequence': Flags.string({
    description:
      "with --format raven: one table per sequence (a sensor's or a folder's recordings), written below this folder",
    exclusive: ['per-file'],
  }),
  'path-prefix': Flags.string({
    description:
      'with --format raven: the folder on your disk that holds the recordings, written before each alias in Begin Path',
  }),
  'waveform-rows': Flags.boolean({
    description: 'with --format raven: a Waveform row beside each Spectrogram row, as Raven writes them',
  }),
}

export interface RavenLayout {
  'per-file'?: string
  'per-sequence'?: string
  'path-prefix'?: string
  'waveform-rows'?: boolean
}

/** Refuses (exit 2) a Raven flag given with another format. */
export function checkRavenFlags(flags: RavenLayout, format: string): void {
  for (const flag of ['per-file', 'per-sequence', 'path-prefix', 'waveform-rows'] as const) {
    if (flag === 'per-file' && format === 'audacity') continue
    if (flags[flag] !== undefined && flags[flag] !== false && format !== 'raven')
      usageError(`--${flag} is for Raven tables: give --format raven`)
  }
}

/** Columns a command adds after mas's own (e.g. a review's verdict). */
export type ExtraColumns = Parameters<typeof ravenTable>[3]

/** The Raven tables of `tags` over `files` (the recordings they may lie on), laid out as `layout` says. */
export async function writeRavenTables(
  api: ApiClient,
  tags: readonly TagRecord[],
  files: readonly RavenFile[],
  className: (id: number) => string | undefined,
  layout: RavenLayout,
  extra?: ExtraColumns,
  write: Write = writeStdout,
): Promise<void> {
  const table = (own: readonly TagRecord[], among: readonly RavenFile[]) =>
    ravenTable(own, among, className, extra, {
      pathPrefix: layout['path-prefix'],
      waveformRows: layout['waveform-rows'],
    })
  const tagged = new Set(tags.map((t) => Number(t.mediaFile)))
  const perFile = layout['per-file']
  if (perFile !== undefined) {
    const used = new Set<string>()
    const names = files
      .filter((f) => tagged.has(f.id))
      .map((file) => {
        let name = perFileName(file.alias)
        // two recordings of one alias (imports that kept only file names) get a table each
        if (used.has(name)) name = name.replace(/\.Table\.1\.selections\.txt$/, `.${file.id}.Table.1.selections.txt`)
        used.add(name)
        return {
          name,
          text: table(
            tags.filter((t) => Number(t.mediaFile) === file.id),
            [file],
          ),
        }
      })
    await writeTables(perFile, names)
    return
  }
  const sequences = sequencesOf(files, await sensorNames(api, files))
  const withTags = sequences.filter((q) => q.files.some((f) => tagged.has(f.id)))
  const unknown = unknownLengths(withTags, tagged).map((f) => f.alias)
  if (unknown.length)
    warn(
      `no duration known for ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}: Begin Time (s) of the files after it leaves it out`,
    )
  const perSequence = layout['per-sequence']
  if (perSequence !== undefined) {
    const used = new Set<string>()
    await writeTables(
      perSequence,
      withTags.map((q) => {
        let name = perSequenceName(q.name)
        // two sequences of one name (sensors of one name, folders a_b and a/b) get a table each
        for (let n = 2; used.has(name); n++) name = perSequenceName(`${q.name} ${n}`)
        used.add(name)
        const ids = new Set(q.files.map((f) => f.id))
        return {
          name,
          text: table(
            tags.filter((t) => ids.has(Number(t.mediaFile))),
            q.files,
          ),
        }
      }),
    )
    return
  }
  if (withTags.length > 1) {
    const shown =
      withTags
        .slice(0, 5)
        .map((q) => q.name)
        .join(', ') + (withTags.length > 5 ? ` and ${withTags.length - 5} more` : '')
    usageError(
      `the tags lie in ${withTags.length} sequences of recordings (${shown}), and one Raven table opens one: ` +
        'give --per-sequence DIR (a table each) or --per-file DIR (a table per recording)',
    )
  }
  await write(table(tags, withTags[0]?.files ?? []))
}

/** The names of the sensors that recorded `files`, where the caller may read them (else the sequence is `sensor-ID`). */
async function sensorNames(api: ApiClient, files: readonly RavenFile[]): Promise<(id: number) => string | undefined> {
  if (!files.some((f) => f.sensor != null)) return () => undefined
  const sensors = await api.all('sensor/').catch(() => [])
  const names = new Map(sensors.map((s) => [s.id, s.name]))
  return (id) => names.get(id)
}

/** Tables below `dir` (each `name` a path within it), then one line saying how many. */
async function writeTables(dir: string, tables: Array<{ name: string; text: string }>): Promise<void> {
  for (const { name, text } of tables) {
    const path = join(dir, name)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  }
  stderr(`Wrote ${tables.length} selection table${tables.length === 1 ? '' : 's'} below ${dir}`)
}
