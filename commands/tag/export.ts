import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Flags } from '@oclif/core'
import { AuthCommand, failure, usageError } from '../../src/baseCommand.js'
import { ApiError, mapLimit } from '../../src/api.js'
import { findTagSet, mediaFiles, tagClasses, type MediaFile, type TagClass, type TagSet } from '../../src/lookup.js'
import { Progress, stderr, warn } from '../../src/output.js'
import { perFileName, perSequenceName, ravenFile, ravenTable, sequencesOf, unknownLengths, type RavenFile } from '../../src/raven.js'
import { TAG_FORMATS, tagWriter, type ExportNames, type TagRecord } from '../../src/tagFormats.js'
import { tagSetTagPages } from '../../src/tagSetStream.js'

export default class TagExport extends AuthCommand<typeof TagExport> {
  static summary = 'Write every tag of a tag set to stdout (CSV, a JSON array, NDJSON or a Raven Pro selection table)'
  static description = `The output is what "mas tag import" reads, so export | import copies a tag set. CSV carries the file's alias (mediaFileAlias) and the class's name (tagClassName) beside their ids; an import reads the ids. Times are written as they were stored.

--format raven writes Raven Pro selection tables that open against the recordings on your disk: Begin Path is each file's alias (or --path-prefix DIR joined with it), Begin File its name, File Offset (s) the place in it, and Begin Time (s) runs on across the recordings of one sequence, as in a Raven multi-file table: a sequence is the recordings of one sensor (or of one folder where there is no sensor) in recording-time order. The class name is in Species, the tags' annotations (the columns of an imported Raven table mas has no field for, such as Notes) in their own columns, and mas_tag_id, mas_media_file_id and mas_tag_class_id make an import of the table exact. Tags in one sequence: one table, to stdout. Tags in several: --per-sequence DIR writes a table per sequence (named after it) below DIR, --per-file DIR one per recording (its alias's folders, NAME.Table.1.selections.txt); without either the command exits 2. --waveform-rows adds a Waveform row to each selection, as Raven writes them.`
  static examples = [
    '<%= config.bin %> tag export --tag-set 1 > tags.csv',
    '<%= config.bin %> tag export --tag-set 1 --format raven > selections.txt',
    '<%= config.bin %> tag export --tag-set 1 --format raven --per-sequence tables --path-prefix "D:\\Field"',
    '<%= config.bin %> tag export --tag-set 1 --format json > tags.json',
    '<%= config.bin %> tag export --tag-set 1 --format ndjson | <%= config.bin %> tag import - --tag-set 2',
  ]

  static flags = {
    'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }),
    format: Flags.option({ options: TAG_FORMATS, default: 'csv' as const, description: 'output format (json: one JSON array; ndjson: one tag a line)' })(),
    'per-file': Flags.string({ description: 'with --format raven: one table per recording, written below this folder' }),
    'per-sequence': Flags.string({ description: 'with --format raven: one table per sequence (a sensor\'s or a folder\'s recordings), written below this folder',
      exclusive: ['per-file'] }),
    'path-prefix': Flags.string({ description: 'with --format raven: the folder on your disk that holds the recordings, written before each alias in Begin Path' }),
    'waveform-rows': Flags.boolean({ description: 'with --format raven: a Waveform row beside each Spectrogram row, as Raven writes them' }),
  }

  async run() {
    const json = this.jsonEnabled()
    const format = this.flags.format
    for (const flag of ['per-file', 'per-sequence', 'path-prefix', 'waveform-rows'] as const) {
      if (this.flags[flag] !== undefined && this.flags[flag] !== false && format !== 'raven') usageError(`--${flag} is for Raven tables: give --format raven`)
    }
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const all: TagRecord[] = []
    const writer = format === 'raven' || json ? undefined : tagWriter(format, format === 'csv' ? await this.exportNames(tagSet) : undefined)
    let started = false
    let progress: Progress | undefined
    const counted = (n: number) => {
      progress = new Progress(n, {
        unit: 'tags', quiet: json || process.stdout.isTTY, // no bar amid the tags on a terminal
        interrupted: (done, total) => `interrupted: ${done} of ${total} tags written; re-run to export them all`,
      })
    }
    try {
      for await (const page of tagSetTagPages<TagRecord>(this.api, tagSet.id, counted)) {
        progress?.tick(page.length)
        if (!writer) { all.push(...page); continue }
        if (!started) { await write(writer.header); started = true }
        await write(writer.rows(page))
      }
    } finally {
      progress?.stop()
    }
    if (json) return all
    if (writer) {
      if (!started) await write(writer.header)
      await write(writer.footer())
      return undefined
    }
    await this.writeRaven(all, tagSet)
    return undefined
  }

  /** The aliases and class names a CSV carries beside the ids: those of the tag set's library. */
  private async exportNames(tagSet: TagSet): Promise<ExportNames | undefined> {
    if (!tagSet.library) return undefined
    const [media, classes] = await Promise.all([mediaFiles(this.api, tagSet.library), tagClasses(this.api, tagSet.library)])
    return { mediaFile: (id) => media.byId(id)?.alias ?? undefined, tagClass: (id) => classes.byId(id)?.className }
  }

  /** The tags as Raven tables: the library's recordings (start time, alias, duration, sensor) and class names; one
   * table when the tags lie in one sequence, else one per sequence (--per-sequence) or per recording (--per-file). */
  private async writeRaven(tags: TagRecord[], tagSet: TagSet): Promise<void> {
    if (!tagSet.library) failure(`tag set ${tagSet.id} belongs to no library: a Raven table needs its recordings`)
    const [media, classes] = await Promise.all([mediaFiles(this.api, tagSet.library), tagClasses(this.api, tagSet.library)])
    // a tag set may hold tags on recordings (and classes) of other libraries (the original allows it): read those too
    const [elsewhere, otherClasses] = await Promise.all([
      this.outside(tags.map((t) => Number(t.mediaFile)), (id) => !media.byId(id), 'mediaFile', 'media file'),
      this.outside(tags.map((t) => Number(t.tagClass)), (id) => !classes.byId(id), 'tagClass', 'tag class'),
    ]) as [MediaFile[], TagClass[]]
    const files = [...media.records, ...elsewhere].map(ravenFile)
    const tagged = new Set(tags.map((t) => Number(t.mediaFile)))
    const sequences = sequencesOf(files, await this.sensorNames(files))
    const classNames = new Map([...classes.records, ...otherClasses].map((c) => [c.id, c.className]))
    const table = (own: TagRecord[], among: RavenFile[]) => ravenTable(own, among, (id) => classNames.get(id), undefined, {
      pathPrefix: this.flags['path-prefix'], waveformRows: this.flags['waveform-rows'],
    })
    if (elsewhere.length) stderr(`${elsewhere.length} tagged recording${elsewhere.length === 1 ? '' : 's'} outside library ${tagSet.library}: included`)
    const perFile = this.flags['per-file']
    if (perFile !== undefined) {
      const used = new Set<string>()
      const names = files.filter((f) => tagged.has(f.id)).map((file) => {
        let name = perFileName(file.alias)
        // two recordings of one alias (imports that kept only file names) get a table each
        if (used.has(name)) name = name.replace(/\.Table\.1\.selections\.txt$/, `.${file.id}.Table.1.selections.txt`)
        used.add(name)
        return { name, text: table(tags.filter((t) => Number(t.mediaFile) === file.id), [file]) }
      })
      await writeTables(perFile, names)
      return
    }
    const withTags = sequences.filter((q) => q.files.some((f) => tagged.has(f.id)))
    const unknown = unknownLengths(withTags, tagged).map((f) => f.alias)
    if (unknown.length) warn(`no duration known for ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}: Begin Time (s) of the files after it leaves it out`)
    const perSequence = this.flags['per-sequence']
    if (perSequence !== undefined) {
      const used = new Set<string>()
      await writeTables(perSequence, withTags.map((q) => {
        let name = perSequenceName(q.name)
        // two sequences of one name (sensors of one name, folders a_b and a/b) get a table each
        for (let n = 2; used.has(name); n++) name = perSequenceName(`${q.name} ${n}`)
        used.add(name)
        const ids = new Set(q.files.map((f) => f.id))
        return { name, text: table(tags.filter((t) => ids.has(Number(t.mediaFile))), q.files) }
      }))
      return
    }
    if (withTags.length > 1) {
      const shown = withTags.slice(0, 5).map((q) => q.name).join(', ') + (withTags.length > 5 ? ` and ${withTags.length - 5} more` : '')
      usageError(`the tags lie in ${withTags.length} sequences of recordings (${shown}), and one Raven table opens one: `
        + 'give --per-sequence DIR (a table each) or --per-file DIR (a table per recording)')
    }
    await write(table(tags, withTags[0]?.files ?? []))
  }

  /** The names of the sensors that recorded `files`, where the caller may read them (else the sequence is `sensor-ID`). */
  private async sensorNames(files: RavenFile[]): Promise<(id: number) => string | undefined> {
    if (!files.some((f) => f.sensor != null)) return () => undefined
    const sensors = await this.api.all<{ id: number; name: string }>('sensor/').catch(() => [])
    const names = new Map(sensors.map((s) => [s.id, s.name]))
    return (id) => names.get(id)
  }

  /** The records (`path` of the API) of the ids that `missing` says the library's lists lacked, each read on its own;
   * one that cannot be read stops the export, saying how many tags it would have left out. */
  private async outside(ids: number[], missing: (id: number) => boolean, path: string, kind: string): Promise<unknown[]> {
    const wanted = [...new Set(ids.filter(missing))]
    const found = await mapLimit(wanted, 8, (id) => this.api.get(`${path}/${id}/`).catch((e) => {
      if (e instanceof ApiError && e.status === 404) return undefined
      throw e
    }))
    const unread = wanted.filter((_id, i) => found[i] === undefined)
    if (unread.length) {
      failure(`${ids.filter((id) => unread.includes(id)).length} tags are on ${kind}s you cannot read (${unread.slice(0, 5).join(', ')}`
        + `${unread.length > 5 ? ', …' : ''}): a Raven table needs them, so nothing was written`)
    }
    return found
  }
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

function write(text: string): Promise<void> {
  if (!text) return Promise.resolve()
  return new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())))
}
