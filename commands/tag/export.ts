import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Flags } from '@oclif/core'
import { AuthCommand, failure, usageError } from '../../src/baseCommand.js'
import { ApiError, mapLimit } from '../../src/api.js'
import { findTagSet, mediaFiles, tagClasses, type MediaFile, type TagClass, type TagSet } from '../../src/lookup.js'
import { Progress, stderr, warn } from '../../src/output.js'
import { inRecordingOrder, perFileName, ravenFile, ravenTable, type RavenFile } from '../../src/raven.js'
import { TAG_FORMATS, tagWriter, type ExportNames, type TagRecord } from '../../src/tagFormats.js'
import { tagSetTagPages } from '../../src/tagSetStream.js'

export default class TagExport extends AuthCommand<typeof TagExport> {
  static summary = 'Write every tag of a tag set to stdout (CSV, a JSON array, NDJSON or a Raven Pro selection table)'
  static description = `The output is what "mas tag import" reads, so export | import copies a tag set. CSV carries the file's alias (mediaFileAlias) and the class's name (tagClassName) beside their ids; an import reads the ids. Times are written as they were stored.

--format raven writes one Raven Pro multi-file selection table over the library's recordings, ordered by start time, then alias: Begin Time (s) runs on across the files, Begin File and File Offset (s) give the place in each file, the class name is in Species, and mas_tag_id, mas_media_file_id and mas_tag_class_id make an import of the table exact. With --per-file DIR, one table per recording that has tags is written below DIR instead (its alias's folders, NAME.Table.1.selections.txt).`
  static examples = [
    '<%= config.bin %> tag export --tag-set 1 > tags.csv',
    '<%= config.bin %> tag export --tag-set 1 --format raven > selections.txt',
    '<%= config.bin %> tag export --tag-set 1 --format json > tags.json',
    '<%= config.bin %> tag export --tag-set 1 --format ndjson | <%= config.bin %> tag import - --tag-set 2',
  ]

  static flags = {
    'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }),
    format: Flags.option({ options: TAG_FORMATS, default: 'csv' as const, description: 'output format (json: one JSON array; ndjson: one tag a line)' })(),
    'per-file': Flags.string({ description: 'with --format raven: one table per recording, written below this folder' }),
  }

  async run() {
    const json = this.jsonEnabled()
    const format = this.flags.format
    if (this.flags['per-file'] !== undefined && format !== 'raven') usageError('--per-file writes Raven tables: give --format raven')
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

  /** The tags as Raven tables: the library's recordings (start time, alias, duration) and class names. */
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
    // a recording of unknown length shifts the Begin Time of the tagged recordings after it
    const ordered = inRecordingOrder(files)
    const lastTagged = ordered.map((f) => tagged.has(f.id)).lastIndexOf(true)
    const unknown = ordered.slice(0, Math.max(0, lastTagged)).filter((f) => f.duration === undefined).map((f) => f.alias)
    const classNames = new Map([...classes.records, ...otherClasses].map((c) => [c.id, c.className]))
    const className = (id: number) => classNames.get(id)
    if (elsewhere.length) stderr(`${elsewhere.length} tagged recording${elsewhere.length === 1 ? '' : 's'} outside library ${tagSet.library}: included`)
    const dir = this.flags['per-file']
    if (dir === undefined) {
      if (unknown.length) warn(`no duration known for ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}: Begin Time (s) of the files after it leaves it out`)
      await write(ravenTable(tags, files, className))
      return
    }
    let written = 0
    const used = new Set<string>()
    for (const file of files.filter((f) => tagged.has(f.id))) {
      let name = perFileName(file.alias)
      // two recordings of one alias (imports that kept only file names) get a table each
      if (used.has(name)) name = name.replace(/\.Table\.1\.selections\.txt$/, `.${file.id}.Table.1.selections.txt`)
      used.add(name)
      const path = join(dir, name)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, ravenTable(tags.filter((t) => Number(t.mediaFile) === file.id), [file], className))
      written++
    }
    stderr(`Wrote ${written} selection table${written === 1 ? '' : 's'} below ${dir}`)
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

function write(text: string): Promise<void> {
  if (!text) return Promise.resolve()
  return new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())))
}
