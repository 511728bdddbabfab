import { Args, Flags } from '@oclif/core'
import { confirm } from '@inquirer/prompts'
import { AuthCommand, failure, usageError } from '../../src/baseCommand.js'
import { count } from '../../src/confirm.js'
import { findTagSet, foldCase, libraryOf, mediaFiles, namesAny, resolveRows, tagClasses, type TagSet } from '../../src/lookup.js'
import { stderr, warn } from '../../src/output.js'
import { readInput } from '../../src/stdin.js'
import { CLASS_COLUMNS } from '../../src/raven.js'
import { detectFormat, parseTags, TAG_FORMATS, type ParsedRows } from '../../src/tagFormats.js'
import { sendTags } from '../../src/tagImport.js'
import { TagImportMemory } from '../../src/tagImportMemory.js'

export default class TagImport extends AuthCommand<typeof TagImport> {
  static summary = 'Create many tags from a CSV, JSON, NDJSON or Raven Pro selection table file (or stdin)'
  static description = `CSV has the header mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency[,strength]. JSON is one array of tag objects (what "mas tag export --format json" writes), NDJSON one tag object a line (--format ndjson). Media files and tag classes are given by id or by name: a class by its name in the tag set's library, a file by its alias (path below the import's root) or by its file name when that is unique in the library; digits only are an id (name:12 is the name "12").

A Raven Pro selection table is read as Raven writes it: the class from the first of ${CLASS_COLUMNS.join(', ')} present (or --class-column), the file from Begin Path or Begin File with File Offset (s) as the place in it (a Begin Path from another computer matches the file whose alias ends it), Waveform rows skipped; --media-file names the recording of a table of one file. Every other column (Notes, Call type…) is kept with the tag as its annotations, and "mas tag export --format raven" writes it back.

Every row is checked and looked up first: if any is bad, the errors are listed with their line numbers and nothing is sent. A class name matches the class of that name, or else the one class whose name differs from it only in case (CHIRP is the library's chirp; where several differ so, the row's error names them). Tag classes the file names that the library lacks are listed all at once; --create-classes creates them (on a terminal you are asked), but never one that differs only in case from an existing class or another new one, unless --force is given. Tags are sent in batches, each created all-or-nothing; to a server that takes one tag a request (the original service) they are sent one by one, several at once. The ids come back in input order. After an interruption or a refused row, a re-run of the same command creates only the tags not created yet.

A row identical to a tag already in the tag set (the same media file, class, times and frequencies) is not created again, so a re-run of a finished import, on any machine, creates nothing and says how many rows were already there; --again creates them again.`

  static examples = [
    '<%= config.bin %> tag import detections.csv --tag-set 1',
    '<%= config.bin %> tag export --tag-set 1 --format ndjson | <%= config.bin %> tag import - --tag-set 2',
    '<%= config.bin %> tag import "XC1234.Table.1.selections.txt" --tag-set 1 --media-file 1',
    '<%= config.bin %> tag import detections.csv --tag-set 1 --again',
  ]

  static args = { file: Args.string({ description: 'file to read, or - for stdin', required: true }) }
  static flags = {
    'tag-set': Flags.string({ description: 'tag set to add the tags to (name or id)', required: true }),
    format: Flags.option({ options: TAG_FORMATS, description: 'input format [default: from the content]' })(),
    'media-file': Flags.string({ description: 'media file (alias, file name or id) of every row without one: a Raven table of one recording' }),
    'class-column': Flags.string({ description: `column of a Raven table holding the class [default: the first of ${CLASS_COLUMNS.join(', ')}]` }),
    'create-classes': Flags.boolean({ description: 'create the tag classes the file names that the library lacks' }),
    force: Flags.boolean({
      description: 'with --create-classes: match class names exactly, and create classes that differ only in case from existing ones or from each other',
      dependsOn: ['create-classes'],
    }),
    'batch-size': Flags.integer({ description: 'tags per request (a server that takes fewer says so, and gets batches of its limit)', default: 10_000, min: 1, max: 100_000 }),
    concurrency: Flags.integer({ description: 'batches sent at once (above 1, tag ids no longer follow the input order)', default: 1, min: 1, max: 32 }),
    again: Flags.boolean({ description: 'create rows identical to tags already in the tag set again (by default they are skipped)' }),
  }

  async run() {
    const source = this.args.file === '-' ? 'stdin' : this.args.file
    const text = await readInput(this.args.file).catch((err) => failure(`FILE: cannot read ${this.args.file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`))
    const format = this.flags.format ?? detectFormat(text)
    if (this.flags['class-column'] !== undefined && format !== 'raven') usageError(`--class-column is for Raven selection tables; ${source} holds ${format}`)
    const parsed = parseTags(text, { format, mediaFile: this.flags['media-file'], classColumn: this.flags['class-column'] })
    for (const w of parsed.warnings) warn(w)
    if (parsed.errors.length) refuse(parsed.errors, source)
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    let { tags, missingClasses, where } = await this.resolve(parsed, tagSet)
    const errors = [...tags.errors]
    // new classes differing only in case from each other (an existing one differing so is matched or named as a candidate)
    const alike = this.flags.force ? [] : sameButCase(missingClasses)
    if (alike.length) {
      errors.push(`tag classes ${alike.map((group) => group.map((c) => JSON.stringify(c)).join(' and ')).join('; ')} differ only in case:`
        + ' correct the file, or give --force to create each as a class of its own')
    }
    const create = missingClasses.length > 0 && !alike.length && await this.mayCreate(missingClasses, where, errors.length === 0)
    if (missingClasses.length && !create && !alike.length) {
      errors.push(`no tag class${missingClasses.length === 1 ? '' : 'es'} named ${missingClasses.map((c) => JSON.stringify(c)).join(', ')}${where}` +
        ' (--create-classes creates them)')
    }
    if (errors.length) refuse(errors, source)
    if (create) {
      for (const className of missingClasses) await this.api.post('tagClass/', { className, library: tagSet.library, displayName: className })
      stderr(`Created ${count(missingClasses.length, 'tag class', 'tag classes')}${where}: ${missingClasses.join(', ')}`)
      ;({ tags } = await this.resolve(parsed, tagSet))
      if (tags.errors.length) refuse(tags.errors, source)
    }
    const { records, earlier, skipped } = await sendTags(this.api, tags, {
      tagSet: tagSet.id, batchSize: this.flags['batch-size'], concurrency: this.flags.concurrency, quiet: this.jsonEnabled(),
      memory: TagImportMemory.at(this.config.dataDir), skipDuplicates: !this.flags.again, wholeRecords: this.jsonEnabled(),
    })
    const imported = records.length - skipped
    const before = earlier ? `; ${earlier} of them were created by an earlier run` : ''
    stderr(`Imported ${imported} tag${imported === 1 ? '' : 's'} into tag set ${tagSet.id} (${tagSet.name})${before}`)
    if (skipped) stderr(`${skipped} row${skipped === 1 ? ' was' : 's were'} already in the tag set (--again imports ${skipped === 1 ? 'it' : 'them'} again)`)
    return records
  }

  /** Names to ids: one list of the library's media files and one of its classes, when rows use names; `where`
   * names the library of the classes (' in library "Season"'). With --force, class names match exactly. */
  private async resolve(parsed: ParsedRows, tagSet: TagSet) {
    const byName = { media: namesAny(parsed.rows, 'mediaFile'), classes: namesAny(parsed.rows, 'tagClass') }
    const library = byName.media || byName.classes ? libraryOf(tagSet, '--tag-set') : 0
    const [media, classes] = await Promise.all([
      byName.media ? mediaFiles(this.api, library) : undefined,
      byName.classes ? tagClasses(this.api, library, { ignoreCase: !this.flags.force }) : undefined,
    ])
    return { ...resolveRows(parsed, media, classes), where: classes?.where ?? '' }
  }

  /** --create-classes, or yes at a terminal's prompt (asked only when nothing else is wrong). */
  private async mayCreate(names: string[], where: string, ask: boolean): Promise<boolean> {
    if (this.flags['create-classes']) return true
    if (!ask || !process.stdin.isTTY || !process.stderr.isTTY) return false
    return confirm({ message: `Create ${count(names.length, 'tag class', 'tag classes')}${where}: ${names.join(', ')}?`, default: false },
      { output: process.stderr }).catch(() => false)
  }
}

/** The groups of names that differ only in case, each in the order given. */
function sameButCase(names: string[]): string[][] {
  const groups = new Map<string, string[]>()
  for (const name of names) groups.set(foldCase(name), [...groups.get(foldCase(name)) ?? [], name])
  return [...groups.values()].filter((g) => g.length > 1)
}

/** Lists the errors (the first 50) and fails: nothing was sent. */
function refuse(errors: string[], source: string): never {
  const shown = errors.slice(0, 50)
  for (const e of shown) stderr(`  ${e}`)
  if (errors.length > shown.length) stderr(`  ... and ${errors.length - shown.length} more`)
  failure(`${errors.length} error${errors.length === 1 ? '' : 's'} in ${source}; nothing was sent`)
}
