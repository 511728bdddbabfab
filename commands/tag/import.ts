import { Args, Flags } from '@oclif/core'
import { confirm } from '@inquirer/prompts'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure, unreadable, usageError } from '../../src/exits.js'
import { count } from '../../src/confirm.js'
import { FORMAT_NAMES, TABLE_FORMATS } from '../../src/detectorFormats.js'
import { parseDuration, RowFilter, type FilterOptions } from '../../src/importFilters.js'
import {
  findTagSet,
  foldCase,
  libraryOf,
  mediaFiles,
  tagClasses,
  type Directory,
  type FoundTagSet,
} from '../../src/lookup.js'
import type { MediaFile, TagClass } from '../../src/records.js'
import { stderr, table, warn } from '../../src/output.js'
import { offersExtensions } from '../../src/serverOffers.js'
import { CLASS_COLUMNS } from '../../src/raven.js'
import { checkTables, readTags, type Checked, type Lookups } from '../../src/tableImport.js'
import { spoolStdin } from '../../src/tableReader.js'
import type { TableSource } from '../../src/tableRows.js'
import { tableSources } from '../../src/tableSources.js'
import { tagSetTagPages } from '../../src/tagSetStream.js'
import { numberValue } from '../../src/tagFormats.js'
import { IDENTITY, TagIdentities, type TagIdentity } from '../../src/tagIdentities.js'
import { ImportProgress, sendTags, unknownServer } from '../../src/tagImport.js'
import { TagImportMemory } from '../../src/tagImportMemory.js'
import { tagSetNamed } from '../../server/named.js'

/** Tags handed to the sender at a time, unless the batches are larger. */
const PART = 10_000

export default class TagImport extends AuthCommand<typeof TagImport> {
  static summary =
    'Create many tags from tables: mas CSV, JSON, NDJSON, Raven Pro, BirdNET, Kaleidoscope, Audacity labels, AOEF (files, folders or stdin)'
  static description = `CSV has the header mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency[,strength]. JSON is one array of tag objects (what "mas tag export --format json" writes), NDJSON one tag object a line (--format ndjson). Media files and tag classes are given by id or by name: a class by its name in the tag set's library, a file by its alias (path below the import's root) or by its file name when that is unique in the library; digits only are an id (name:12 is the name "12").

A Raven Pro selection table is read as Raven writes it: the class from the first of ${CLASS_COLUMNS.join(', ')} present (or --class-column), the file from Begin Path or Begin File with File Offset (s) as the place in it (a table joined from single recordings' tables, whose Begin Time is already within each file, needs --times-in-file) (a Begin Path from another computer matches the file whose alias ends it), Waveform rows skipped; --media-file names the recording of a table of one file. Every other column (Notes, Call type…) is kept with the tag as its annotations, and "mas tag export --format raven" writes it back.

Every row is checked and looked up first: if any is bad, the errors are listed with their line numbers and nothing is sent. A class name matches the class of that name, or else the one class whose name differs from it only in case (CHIRP is the library's chirp; where several differ so, the row's error names them). Tag classes the file names that the library lacks are listed all at once; --create-classes creates them (on a terminal you are asked), but never one that differs only in case from an existing class or another new one, unless --force is given. Tags are sent in batches, each created all-or-nothing; to a server that takes one tag a request (the original service) they are sent one by one, several at once. The ids come back in input order. After an interruption or a refused row, a re-run of the same command creates only the tags not created yet.

Detectors' and labelling tools' tables are read as those tools write them, each file's format found from its content (--format forces one): BirdNET-Analyzer's CSV (Start (s),End (s),Scientific name,Common name,Confidence,File; the class is the scientific name, the strength the confidence, a new class's display name the common name) and its selection tables (class Common Name, strength Confidence), Kaleidoscope's CSV (the file FOLDER/IN FILE, the class TOP1MATCH; TOP1DIST is a distance, so no strength), Audacity label tracks (start, end, label lines, each optionally followed by its \\ low high frequency line; the recording is the label file's path below the folder imported, without .txt, or --media-file) and AOEF JSON (soundevent's, Whombat's export). Detectors' rows become machine tags, Audacity's and AOEF annotations user tags (a table or document mas exported keeps each tag's own flags); the columns mas has no field for are kept as annotations, and each tag's provenance names the tool (its version and settings where the table gives them, or --source). Several files and folders are read in one command (below a folder, every .csv, .txt, .tsv, .json and .ndjson file holding a table). Each file is read twice, once to check every row and once to send, so memory does not grow with its length. --dry-run says what matches, what does not and why, and sends nothing; --min-score keeps rows scoring at least that, --top N [--per 1h] the N best of each media file (in each interval from its start).

A row identical to a tag already in the tag set (the same media file, class, times and frequencies) is not created again, so a re-run of a finished import, on any machine, creates nothing and says how many rows were already there; --again creates them again.`

  static examples = [
    '<%= config.bin %> tag import detections.csv --tag-set 1',
    '<%= config.bin %> tag export --tag-set 1 --format ndjson | <%= config.bin %> tag import - --tag-set 2',
    '<%= config.bin %> tag import "XC1234.Table.1.selections.txt" --tag-set 1 --media-file 1',
    '<%= config.bin %> tag import detections.csv --tag-set 1 --again',
    '<%= config.bin %> tag import birdnet/ labels/ --tag-set 1 --dry-run',
    '<%= config.bin %> tag import birdnet/ --tag-set 1 --min-score 0.5 --top 5 --per 1h --source "BirdNET-Analyzer 2.4.0" --dry-run',
  ]

  static strict = false
  static args = {
    file: Args.string({
      description: 'files or folders to read (tables below a folder, at any depth), or - for stdin',
      required: true,
    }),
  }
  static flags = {
    'tag-set': Flags.string({ description: 'tag set to add the tags to (name or id)', required: true }),
    format: Flags.option({
      options: TABLE_FORMATS,
      description: "input format of every file [default: each file's, from its content]",
    })(),
    'media-file': Flags.string({
      description:
        "media file (alias, file name or id) of every row without one, and of a Raven table of one recording; an Audacity label track's recording",
    }),
    'times-in-file': Flags.boolean({
      description:
        "in a Raven table without File Offset (s), each Begin Time (s) is already the time within the row's Begin File (tables of single recordings joined together)",
    }),
    'class-column': Flags.string({
      description: `column of a Raven table holding the class [default: the first of ${CLASS_COLUMNS.join(', ')}; BirdNET's: Common Name]`,
    }),
    'create-classes': Flags.boolean({ description: 'create the tag classes the file names that the library lacks' }),
    force: Flags.boolean({
      description:
        'with --create-classes: match class names exactly, and create classes that differ only in case from existing ones or from each other',
      dependsOn: ['create-classes'],
    }),
    source: Flags.string({
      description:
        'the tool that made the tables, and its version ("BirdNET-Analyzer 2.4.0"), kept in each tag\'s provenance [default: the format\'s tool]',
    }),
    'dry-run': Flags.boolean({
      description: 'check every row and say what matches, what does not and why; send nothing',
    }),
    'min-score': Flags.string({
      description: "import only rows whose score (strength, BirdNET's Confidence) is at least this",
    }),
    top: Flags.integer({
      description: 'import only the N highest-scoring rows of each media file (per --per interval)',
      min: 1,
    }),
    per: Flags.string({
      description: "with --top: the interval from each file's start (1h, 30min, 90s…)",
      dependsOn: ['top'],
    }),
    'batch-size': Flags.integer({
      description: 'tags per request (a server that takes fewer says so, and gets batches of its limit)',
      default: 10_000,
      min: 1,
      max: 100_000,
    }),
    concurrency: Flags.integer({
      description: 'batches sent at once (above 1, tag ids no longer follow the input order)',
      default: 1,
      min: 1,
      max: 32,
    }),
    again: Flags.boolean({
      description: 'create rows identical to tags already in the tag set again (by default they are skipped)',
    }),
  }

  async run() {
    const args = this.positionals
    const filter = new RowFilter(this.filterOptions())
    if (
      this.flags['class-column'] !== undefined &&
      this.flags.format !== undefined &&
      !['raven', 'birdnet-raven'].includes(this.flags.format)
    ) {
      usageError(`--class-column is for Raven selection tables; --format is ${this.flags.format}`)
    }
    const spooled = args.includes('-') ? await spoolStdin() : undefined
    try {
      return await this.importTables(args, filter, spooled?.file)
    } finally {
      await spooled?.done()
    }
  }

  private async importTables(args: string[], filter: RowFilter, stdin: string | undefined) {
    const { sources, passed } = await tableSources(args, {
      format: this.flags.format,
      mediaFile: this.flags['media-file'],
      stdin,
    }).catch((err: NodeJS.ErrnoException) => unreadable(err.path ?? args.join(' '), err))
    for (const p of passed) warn(`${p.name}: passed over: ${p.why}`)
    if (!sources.length) failure(`no table to import in ${args.join(' ')}`)
    const names = sources.length === 1 ? sources[0].name : `${sources.length} tables`
    for (const s of sources) {
      if (this.flags['class-column'] !== undefined && !['raven', 'birdnet-raven'].includes(s.format)) {
        usageError(`--class-column is for Raven selection tables; ${s.name} holds ${s.format}`)
      }
    }
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const read = {
      classColumn: this.flags['class-column'],
      timesInFile: this.flags['times-in-file'],
      source: sourceOf(this.flags.source),
    }
    const checked = await checkTables(sources, this.lookups(tagSet), filter, read)
    for (const s of sources)
      if (s.passedOver !== undefined) warn(`${s.name}: passed over: ${s.passedOver} (${FORMAT_NAMES[s.format].title})`)
    // every table below the folders passed over (none of the --format asked): as when none is found at all
    if (sources.every((s) => s.passedOver !== undefined)) failure(`no table to import in ${args.join(' ')}`)
    if (this.flags['dry-run'])
      return this.dryRun(checked, filter, () => this.alreadyThere(sources, tagSet, filter, { ...read, chunk: PART }))
    if (checked.rowErrors.length) refuse(checked.rowErrors, checked.errorCount - checked.lookupErrors.length, names)
    const missingClasses = [...checked.missingClasses.keys()]
    const where = missingClasses.length ? (await this.lookups(tagSet).classes()).where : ''
    const errors = [...checked.lookupErrors]
    let errorCount = checked.errorCount
    // new classes differing only in case from each other (an existing one differing so is matched or named as a candidate)
    const alike = this.flags.force ? [] : sameButCase(missingClasses)
    if (alike.length) {
      errorCount++
      errors.push(
        `tag classes ${alike.map((group) => group.map((c) => JSON.stringify(c)).join(' and ')).join('; ')} differ only in case:` +
          ' correct the file, or give --force to create each as a class of its own',
      )
    }
    const create =
      missingClasses.length > 0 && !alike.length && (await this.mayCreate(missingClasses, where, errors.length === 0))
    if (missingClasses.length && !create && !alike.length) {
      errorCount++
      errors.push(
        `no tag class${missingClasses.length === 1 ? '' : 'es'} named ${missingClasses.map((c) => JSON.stringify(c)).join(', ')}${where}` +
          ' (--create-classes creates them)',
      )
    }
    if (errors.length) refuse(errors, errorCount, names)
    if (create) {
      for (const [className, displayName] of checked.missingClasses) {
        await this.api.post('tagClass/', { className, library: tagSet.library, displayName: displayName ?? className })
      }
      stderr(
        `Created ${count(missingClasses.length, 'tag class', 'tag classes')}${where}: ${missingClasses.join(', ')}`,
      )
    }
    const memory = TagImportMemory.at(this.config.dataDir)
    const records: unknown[] = []
    let imported = 0
    let earlier = 0
    let skipped = 0
    // the tags handed to the sender at a time (at least a batch for each of --concurrency): what an import holds beyond
    // the lists of media files and classes; the same whatever the batch size up to PART, so a re-run with another finds
    // what an interrupted run created (docs/decisions.md §32)
    const { concurrency } = this.flags
    const chunk = Math.max(PART, this.flags['batch-size'] * concurrency)
    const server = unknownServer()
    const total = filter.active ? filter.keptCount() : checked.rows
    let handed = 0
    const progress = new ImportProgress(total, this.jsonEnabled())
    try {
      await readTags(sources, this.lookups(tagSet), filter, { ...read, chunk }, async (tags) => {
        const sent = await sendTags(this.api, tags, {
          tagSet: tagSet.id,
          batchSize: this.flags['batch-size'],
          concurrency,
          memory,
          skipDuplicates: !this.flags.again,
          wholeRecords: this.jsonEnabled(),
          part: { before: handed, total, created: imported },
          server,
          progress,
        })
        handed += tags.tags.length
        if (this.jsonEnabled()) records.push(...sent.records)
        imported += sent.records.length - sent.skipped
        earlier += sent.earlier
        skipped += sent.skipped
      })
    } finally {
      progress.stop()
    }
    const before = earlier ? `; ${earlier} of them were created by an earlier run` : ''
    const left = filter.active
      ? ` (${checked.rows - filter.keptCount()} of ${checked.rows} rows left out by ${this.filterNames()})`
      : ''
    stderr(`Imported ${imported} tag${imported === 1 ? '' : 's'} into ${tagSetNamed(tagSet)}${before}${left}`)
    if (skipped)
      stderr(
        `${skipped} row${skipped === 1 ? ' was' : 's were'} already in the tag set (--again imports ${skipped === 1 ? 'it' : 'them'} again)`,
      )
    return records
  }

  /** The library's media files and classes (each list fetched once per reading, when a row names one). With --force,
   * class names match exactly. */
  private lookups(tagSet: FoundTagSet): Lookups {
    let media: Promise<Directory<MediaFile>> | undefined
    let classes: Promise<Directory<TagClass>> | undefined
    const libraryMedia = () => (media ??= mediaFiles(this.api, libraryOf(tagSet, '--tag-set')))
    return {
      media: libraryMedia,
      classes: () =>
        (classes ??= tagClasses(this.api, libraryOf(tagSet, '--tag-set'), { ignoreCase: !this.flags.force })),
      keepsTagsInRecordings: () => offersExtensions(this.api),
      // the library's list when the tag set has a library (names are looked up in it), else each file by its id
      mediaRecord: async (id) =>
        tagSet.library != null
          ? (await libraryMedia()).byId(id)
          : await this.api
              .request<MediaFile>('GET', `mediaFile/${id}/`)
              .then((answer) => (answer.status === 200 ? answer.data : undefined)),
    }
  }

  /** --dry-run: a line per table (its format, its rows, those matched and on how many media files, those not), the
   * errors (why not), the classes that are missing, and what would be imported; exit 1 when something is wrong. */
  private async dryRun(checked: Checked, filter: RowFilter, alreadyThere: () => Promise<number>) {
    const tables = checked.tables.map((t) => ({
      table: t.source.name,
      format: FORMAT_NAMES[t.source.format].title,
      // a table whose header could not be read has no rows to count: its error says why
      rows: t.unreadable === undefined ? t.matched + t.errors : null,
      matched: t.matched,
      mediaFiles: t.mediaFiles,
      notMatched: t.unreadable === undefined ? t.errors : null,
    }))
    if (!this.jsonEnabled()) {
      this.log(
        table(tables, [
          { header: 'table', get: (r) => r.table },
          { header: 'format', get: (r) => r.format },
          { header: 'rows', get: (r) => r.rows ?? 'unreadable' },
          { header: 'matched', get: (r) => r.matched },
          { header: 'media files', get: (r) => r.mediaFiles },
          { header: 'not matched', get: (r) => r.notMatched ?? '-' },
        ]),
      )
    }
    const errors = checked.errorsInOrder
    for (const e of errors) stderr(`  ${e}`)
    if (checked.errorCount > errors.length) stderr(`  ... and ${checked.errorCount - errors.length} more`)
    const missing = [...checked.missingClasses.keys()]
    const names = missing.map((c) => JSON.stringify(c)).join(', ')
    const classes = `tag class${missing.length === 1 ? '' : 'es'}`
    if (missing.length)
      stderr(
        this.flags['create-classes']
          ? `would create the ${classes} ${names}`
          : `no ${classes} named ${names} (--create-classes would create them)`,
      )
    const kept = filter.active ? filter.keptCount() : checked.rows
    const left = filter.active ? ` (${checked.rows - kept} of ${checked.rows} left out by ${this.filterNames()})` : ''
    // as the import would skip them (unless --again): rows like a tag of the set; an import refused skips none
    const there = checked.errorCount || this.flags.again || kept === 0 ? 0 : await alreadyThere()
    stderr(
      `Dry run: ${kept - there} tag${kept - there === 1 ? '' : 's'} would be imported${left}` +
        (there ? `; ${count(there, 'row')} already in the tag set (--again imports them again)` : '') +
        '; nothing was sent',
    )
    if (checked.errorCount)
      failure(`${checked.errorCount} error${checked.errorCount === 1 ? '' : 's'}: the import would be refused`)
    return { tables, toImport: kept - there, alreadyInTagSet: there, missingClasses: missing }
  }

  /** How many of the tags the tables hold are in the tag set already: the rows an import skips, found as the
   * server finds them (src/tagIdentities.ts), from the set's tags read in one answer. Rows of a class still to be
   * created are new. */
  private async alreadyThere(
    sources: TableSource[],
    tagSet: FoundTagSet,
    filter: RowFilter,
    read: Parameters<typeof readTags>[3],
  ): Promise<number> {
    const stored = new TagIdentities()
    for await (const page of tagSetTagPages<TagIdentity>(this.api, tagSet.id, undefined, IDENTITY))
      for (const t of page) stored.add(t)
    // into an empty set every row is new: the tables are not read again
    if (!stored.size) return 0
    let there = 0
    await readTags(sources, this.lookups(tagSet), filter, read, async ({ tags }) => {
      for (const t of tags) if (stored.has(t)) there++
    })
    return there
  }

  private filterOptions(): FilterOptions {
    const minScore = this.flags['min-score']
    const score = minScore === undefined ? undefined : numberValue(minScore)
    if (score === null) usageError(`--min-score must be a number, not ${JSON.stringify(minScore)}`)
    const per = this.flags.per === undefined ? undefined : parseDuration(this.flags.per)
    if (this.flags.per !== undefined && per === undefined)
      usageError(`--per must be a duration such as 1h, 30min or 90s, not ${JSON.stringify(this.flags.per)}`)
    return { minScore: score, top: this.flags.top, per }
  }

  private filterNames(): string {
    const { 'min-score': minScore, top, per } = this.flags
    return [
      minScore !== undefined && `--min-score ${minScore}`,
      top !== undefined && `--top ${top}${per ? ` --per ${per}` : ''}`,
    ]
      .filter(Boolean)
      .join(' and ')
  }

  /** --create-classes, or yes at a terminal's prompt (asked only when nothing else is wrong). */
  private async mayCreate(names: string[], where: string, ask: boolean): Promise<boolean> {
    if (this.flags['create-classes']) return true
    if (!ask || !process.stdin.isTTY || !process.stderr.isTTY) return false
    return confirm(
      {
        message: `Create ${count(names.length, 'tag class', 'tag classes')}${where}: ${names.join(', ')}?`,
        default: false,
      },
      { output: process.stderr },
    ).catch(() => false)
  }
}

/** The groups of names that differ only in case, each in the order given. */
function sameButCase(names: string[]): string[][] {
  const groups = new Map<string, string[]>()
  for (const name of names) groups.set(foldCase(name), [...(groups.get(foldCase(name)) ?? []), name])
  return [...groups.values()].filter((g) => g.length > 1)
}

/** Lists the errors (the first 50 of `total`) and fails: nothing was sent. */
function refuse(errors: string[], total: number, source: string): never {
  const shown = errors.slice(0, 50)
  for (const e of shown) stderr(`  ${e}`)
  if (total > shown.length) stderr(`  ... and ${total - shown.length} more`)
  failure(`${total} error${total === 1 ? '' : 's'} in ${source}; nothing was sent`)
}

/** --source: the tool's name, and its version when the last word is one ("BirdNET-Analyzer 2.4.0"). */
function sourceOf(text: string | undefined): { source?: string; version?: string } | undefined {
  if (text === undefined) return undefined
  const m = /^(.*\S)\s+v?(\d[\w.+-]*)$/.exec(text.trim())
  return m ? { source: m[1], version: m[2] } : { source: text.trim() }
}
