import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure, usageError } from '../../src/exits.js'
import { outputFile, type Write } from '../../src/outputFile.js'
import { ApiError, mapLimit } from '../../src/api.js'
import { findTagSet, libraryNamed, mediaFiles, tagClasses, type FoundTagSet } from '../../src/lookup.js'
import type { MediaFile, TagClass } from '../../src/records.js'
import { Progress, stderr, writeStdout } from '../../src/output.js'
import { TextWriter } from '../../src/utf8Chunks.js'
import { ravenFile } from '../../src/raven.js'
import { checkRavenFlags, ravenFlags, writeRavenTables } from '../../src/ravenTables.js'
import { TAG_FORMATS, tagWriter, type ExportNames, type TagRecord } from '../../src/tagFormats.js'
import { EXPORT_DETECTOR_FORMATS, isDetectorExport, detectorExport } from '../../src/detectorExport.js'
import { tagSetTagPages } from '../../src/tagSetStream.js'
import {
  CAMTRAP_DP_HELP,
  camtrapFlags,
  camtrapSummaryLine,
  checkCamtrapFlags,
  writeCamtrapDp,
} from '../../src/camtrapDp.js'
import { tagSetNamed } from '../../server/named.js'

export default class TagExport extends AuthCommand<typeof TagExport> {
  static summary =
    'Write every tag of a tag set to stdout or a file (CSV, a JSON array, NDJSON, a Raven Pro selection table, or BirdNET, Kaleidoscope, Audacity or AOEF tables)'
  static description = `The output is what "mas tag import" reads, so export | import copies a tag set. CSV carries the tag's flags (machineTagged, userTagged, randomlyChosen), its annotations and provenance (JSON text), and the file's alias (mediaFileAlias) and the class's name (tagClassName) beside their ids; an import reads the ids. Times are written as they were stored.

--format raven writes Raven Pro selection tables that open against the recordings on your disk: Begin Path is each file's alias (or --path-prefix DIR joined with it), Begin File its name, File Offset (s) the place in it, and Begin Time (s) runs on across the recordings of one sequence, as in a Raven multi-file table: a sequence is the recordings of one sensor (or of one folder where there is no sensor) in recording-time order. The class name is in Species, the tags' annotations (the columns of an imported Raven table mas has no field for, such as Notes) in their own columns, and mas_tag_id, mas_media_file_id and mas_tag_class_id make an import of the table exact. Tags in one sequence: one table, to stdout. Tags in several: --per-sequence DIR writes a table per sequence (named after it) below DIR, --per-file DIR one per recording (its alias's folders, NAME.Table.1.selections.txt); without either the command exits 2. --waveform-rows adds a Waveform row to each selection, as Raven writes them.

--format birdnet, kaleidoscope, audacity and aoef write the tables those tools write, which "mas tag import" reads back: BirdNET-Analyzer's CSV (the class's name as Scientific name, the strength as Confidence, the alias as File) and Kaleidoscope's CSV (FOLDER and IN FILE from the alias, the class as TOP1MATCH), each with the tags' annotations in their own columns, what the format has no room for (mas_min_frequency and mas_max_frequency of BirdNET's, mas_strength of Kaleidoscope's, mas_machine_tagged, mas_user_tagged, mas_randomly_chosen), mas_review (the reviewers' decisions) and mas_provenance; Audacity label tracks (one per recording: tags on several need --per-file DIR, a track each named after its recording's alias with .txt); AOEF JSON (an annotation set: a class tag and a review tag per sound event, its strength and flags features, its provenance a note).

${CAMTRAP_DP_HELP}`
  static examples = [
    '<%= config.bin %> tag export --tag-set 1 > tags.csv',
    '<%= config.bin %> tag export --tag-set 1 --format raven > selections.txt',
    '<%= config.bin %> tag export --tag-set 1 --format raven --per-sequence tables --path-prefix "D:\\Field"',
    '<%= config.bin %> tag export --tag-set 1 --format json > tags.json',
    '<%= config.bin %> tag export --tag-set 1 --format birdnet -o tags.BirdNET.results.csv',
    '<%= config.bin %> tag export --tag-set 1 --format ndjson | <%= config.bin %> tag import - --tag-set 2',
    '<%= config.bin %> tag export --tag-set 1 --format camtrap-dp -o season-2026-dp --reviewed-only --utc-offset +02:00',
  ]

  static flags = {
    'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }),
    format: Flags.option({
      options: [...TAG_FORMATS, ...EXPORT_DETECTOR_FORMATS, 'camtrap-dp'] as const,
      default: 'csv' as const,
      description: 'output format (json: one JSON array; ndjson: one tag a line)',
    })(),
    ...ravenFlags,
    ...camtrapFlags,
  }

  async run() {
    const json = this.jsonEnabled()
    const format = this.flags.format
    checkRavenFlags(this.flags, format)
    checkCamtrapFlags(this.flags, format)
    const output = format === 'camtrap-dp' ? undefined : this.flags.output
    if (output !== undefined) {
      if (json) usageError('-o writes the format to a file, --json prints the tags as JSON: give one of them')
      for (const folder of ['per-file', 'per-sequence'] as const)
        if (this.flags[folder] !== undefined) usageError(`--${folder} writes a folder of files: -o is for one file`)
    }
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    if (format === 'camtrap-dp') return this.camtrapDp(tagSet)
    if (output === undefined) return this.exportAs(format, tagSet, writeStdout, false)
    const file = outputFile(output)
    try {
      await this.exportAs(format, tagSet, file.write, true)
      await file.done()
    } catch (e) {
      file.abandon()
      throw e
    }
    stderr(`wrote ${output}`)
    return undefined
  }

  /** The tag set's tags in `format` (any but camtrap-dp), written by `write` (to a file: `toFile`); with --json,
   * returned instead. */
  private async exportAs(
    format: Exclude<TagExport['flags']['format'], 'camtrap-dp'>,
    tagSet: FoundTagSet,
    write: Write,
    toFile: boolean,
  ) {
    const json = this.jsonEnabled()
    const all: TagRecord[] = []
    // a detector's format needs the library's names before the tags, and may keep the tags on disk until the last
    const detector =
      isDetectorExport(format) && !json
        ? await detectorExport(this.api, tagSet, format, this.flags['per-file'], write)
        : undefined
    const writer =
      format === 'raven' || isDetectorExport(format) || json
        ? undefined
        : tagWriter(format, format === 'csv' ? await this.exportNames(tagSet) : undefined)
    const out = new TextWriter(write)
    let started = false
    let progress: Progress | undefined
    const counted = (n: number) => {
      progress = new Progress(n, {
        unit: 'tags',
        quiet: json || (process.stdout.isTTY && !toFile), // no bar amid the tags on a terminal
        interrupted: (done, total) => `interrupted: ${done} of ${total} tags written; re-run to export them all`,
      })
    }
    try {
      for await (const page of tagSetTagPages<TagRecord>(this.api, tagSet.id, counted, (detector ?? writer)?.fields)) {
        progress?.tick(page.length)
        if (detector) {
          await detector.add(page)
          continue
        }
        if (!writer) {
          all.push(...page)
          continue
        }
        if (!started) {
          out.append(writer.header)
          started = true
        }
        writer.rows(page, out.append)
        await out.drain()
      }
      await detector?.finish()
    } catch (e) {
      // what came before the failure is written, as it would have been page by page
      await out.drain(true).catch(() => {})
      throw e
    } finally {
      progress?.stop()
      detector?.close()
    }
    if (json) return all
    if (detector) return undefined
    if (writer) {
      if (!started) out.append(writer.header)
      out.append(writer.footer())
      await out.drain(true)
      return undefined
    }
    await this.writeRaven(all, tagSet, write)
    return undefined
  }

  /** --format camtrap-dp: a Camtrap DP package in the folder -o (src/camtrapDp.ts); a line of what it holds on stderr. */
  private async camtrapDp(tagSet: FoundTagSet) {
    let progress: Progress | undefined
    const quiet = this.jsonEnabled()
    try {
      const summary = await writeCamtrapDp({
        api: this.api,
        tagSet,
        flags: this.flags,
        me: this.profile?.username,
        version: this.config.version,
        onCount: (n) => {
          progress = new Progress(n, { unit: 'tags', quiet })
        },
        onPage: (n) => progress?.tick(n),
      })
      // the bar's last redraw first, so that it cannot write over the end of the line
      progress?.stop()
      if (!quiet) stderr(camtrapSummaryLine(summary))
      return summary
    } finally {
      progress?.stop()
    }
  }

  /** The aliases and class names a CSV carries beside the ids: those of the tag set's library. */
  private async exportNames(tagSet: FoundTagSet): Promise<ExportNames | undefined> {
    if (!tagSet.library) return undefined
    const [media, classes] = await Promise.all([
      mediaFiles(this.api, tagSet.library),
      tagClasses(this.api, tagSet.library),
    ])
    return { mediaFile: (id) => media.byId(id)?.alias ?? undefined, tagClass: (id) => classes.byId(id)?.className }
  }

  /** The tags as Raven tables (src/ravenTables.ts) over the library's recordings (start time, alias, duration, sensor)
   * and those of other libraries the tag set's tags lie on, with the class names. */
  private async writeRaven(tags: TagRecord[], tagSet: FoundTagSet, write: Write): Promise<void> {
    if (!tagSet.library) failure(`${tagSetNamed(tagSet)} belongs to no library: a Raven table needs its recordings`)
    const [media, classes] = await Promise.all([
      mediaFiles(this.api, tagSet.library),
      tagClasses(this.api, tagSet.library),
    ])
    // a tag set may hold tags on recordings (and classes) of other libraries (the original allows it): read those too
    const [elsewhere, otherClasses] = (await Promise.all([
      this.outside(
        tags.map((t) => Number(t.mediaFile)),
        (id) => !media.byId(id),
        'mediaFile',
        'media file',
      ),
      this.outside(
        tags.map((t) => Number(t.tagClass)),
        (id) => !classes.byId(id),
        'tagClass',
        'tag class',
      ),
    ])) as [MediaFile[], TagClass[]]
    const files = [...media.records, ...elsewhere].map(ravenFile)
    const classNames = new Map([...classes.records, ...otherClasses].map((c) => [c.id, c.className]))
    if (elsewhere.length)
      stderr(
        `${elsewhere.length} tagged recording${elsewhere.length === 1 ? '' : 's'} outside ${await libraryNamed(this.api, tagSet.library)}: included`,
      )
    await writeRavenTables(this.api, tags, files, (id) => classNames.get(id), this.flags, undefined, write)
  }

  /** The records (`path` of the API) of the ids that `missing` says the library's lists lacked, each read on its own;
   * one that cannot be read stops the export, saying how many tags it would have left out. */
  private async outside(
    ids: number[],
    missing: (id: number) => boolean,
    path: string,
    kind: string,
  ): Promise<unknown[]> {
    const wanted = [...new Set(ids.filter(missing))]
    const found = await mapLimit(wanted, 8, (id) =>
      this.api.get(`${path}/${id}/`).catch((e) => {
        if (e instanceof ApiError && e.status === 404) return undefined
        throw e
      }),
    )
    const unread = wanted.filter((_id, i) => found[i] === undefined)
    if (unread.length) {
      failure(
        `${ids.filter((id) => unread.includes(id)).length} tags are on ${kind}s you cannot read (${unread.slice(0, 5).join(', ')}` +
          `${unread.length > 5 ? ', …' : ''}): a Raven table needs them, so nothing was written`,
      )
    }
    return found
  }
}
