import { Args, Flags } from '@oclif/core'
import { AuthCommand, failure } from '../../src/base-command.js'
import { stderr } from '../../src/output.js'
import { readInput } from '../../src/stdin.js'
import { parseTags, TAG_FORMATS } from '../../src/tag-formats.js'
import { sendTags } from '../../src/tag-import.js'
import { TagImportMemory } from '../../src/tag-import-memory.js'

export default class TagImport extends AuthCommand<typeof TagImport> {
  static summary = 'Create many tags from a CSV, JSON, NDJSON or Raven Pro selection table file (or stdin)'
  static description = `CSV has the header mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency[,strength]. JSON is one array of tag objects (what "mas tag export --format json" writes), NDJSON one tag object a line (--format ndjson). A Raven Pro selection table is tab-separated with Begin Time (s), End Time (s), Low Freq (Hz), High Freq (Hz), Tag Class and Media File columns; --media-file stands in for the Media File column of a table of one recording. Every row is checked first: if any is bad, the errors are listed with their line numbers and nothing is sent. Tags are sent in batches, each created all-or-nothing; to a server that takes one tag a request (the original service) they are sent one by one, several at once. The ids come back in input order. After an interruption or a refused row, a re-run of the same command creates only the tags not created yet.`

  static examples = [
    '<%= config.bin %> tag import detections.csv --tag-set 12',
    '<%= config.bin %> tag export --tag-set 12 --format ndjson | <%= config.bin %> tag import - --tag-set 13',
    '<%= config.bin %> tag import "XC1234.Table.1.selections.txt" --tag-set 12 --media-file 345',
  ]

  static args = { file: Args.string({ description: 'file to read, or - for stdin', required: true }) }
  static flags = {
    'tag-set': Flags.integer({ description: 'tag set to add the tags to', required: true, min: 1 }),
    format: Flags.option({ options: TAG_FORMATS, description: 'input format [default: from the content]' })(),
    'media-file': Flags.integer({ description: 'media file of every row without one (Raven tables of one recording)', min: 1 }),
    'batch-size': Flags.integer({ description: 'tags per request', default: 1000, min: 1, max: 100_000 }),
    concurrency: Flags.integer({ description: 'batches sent at once (above 1, tag ids no longer follow the input order)', default: 1, min: 1, max: 32 }),
  }

  async run() {
    const text = await readInput(this.args.file).catch((err) => failure(`Cannot read ${this.args.file}: ${err.message}`))
    const parsed = parseTags(text, { format: this.flags.format, mediaFile: this.flags['media-file'] })
    if (parsed.errors.length) {
      const shown = parsed.errors.slice(0, 50)
      for (const e of shown) stderr(`  ${e}`)
      if (parsed.errors.length > shown.length) stderr(`  ... and ${parsed.errors.length - shown.length} more`)
      failure(`${parsed.errors.length} bad row${parsed.errors.length === 1 ? '' : 's'} in ${this.args.file === '-' ? 'stdin' : this.args.file}; nothing was sent`)
    }
    await this.api.get(`tagSet/${this.flags['tag-set']}/`)
    const { records, earlier } = await sendTags(this.api, parsed, {
      tagSet: this.flags['tag-set'], batchSize: this.flags['batch-size'], concurrency: this.flags.concurrency, quiet: this.jsonEnabled(),
      memory: TagImportMemory.at(this.config.dataDir),
    })
    const before = earlier ? ` (${earlier} of them created by an earlier run)` : ''
    stderr(`Imported ${records.length} tag${records.length === 1 ? '' : 's'} into tag set ${this.flags['tag-set']}${before}`)
    return records
  }
}
