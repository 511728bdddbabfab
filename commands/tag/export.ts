import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { Progress } from '../../src/output.js'
import { TAG_FORMATS, tagWriter } from '../../src/tag-formats.js'

export default class TagExport extends AuthCommand<typeof TagExport> {
  static summary = 'Write every tag of a tag set to stdout (CSV, a JSON array, NDJSON or a Raven Pro selection table)'
  static description = 'The output is what "mas tag import" reads, so export | import copies a tag set.'
  static examples = [
    '<%= config.bin %> tag export --tag-set 1 > tags.csv',
    '<%= config.bin %> tag export --tag-set 1 --format raven > selections.txt',
    '<%= config.bin %> tag export --tag-set 1 --format json > tags.json',
    '<%= config.bin %> tag export --tag-set 1 --format ndjson | <%= config.bin %> tag import - --tag-set 2',
  ]

  static flags = {
    'tag-set': Flags.integer({ description: 'tag set id', required: true, min: 1 }),
    format: Flags.option({ options: TAG_FORMATS, default: 'csv' as const, description: 'output format (json: one JSON array; ndjson: one tag a line)' })(),
  }

  async run() {
    const json = this.jsonEnabled()
    const all: any[] = []
    const writer = tagWriter(this.flags.format)
    let started = false
    let progress: Progress | undefined
    const counted = (count: number) => {
      progress = new Progress(count, {
        unit: 'tags', quiet: json || process.stdout.isTTY, // no bar amid the tags on a terminal
        interrupted: (done, total) => `interrupted: ${done} of ${total} tags written; re-run to export them all`,
      })
    }
    try {
      for await (const page of this.api.pages(`tagSet/${this.flags['tag-set']}/tags/`, {}, counted)) {
        progress?.tick(page.length)
        if (json) { all.push(...page); continue }
        if (!started) { await write(writer.header); started = true }
        await write(writer.rows(page))
      }
    } finally {
      progress?.stop()
    }
    if (!json && !started) await write(writer.header)
    if (!json) await write(writer.footer())
    return json ? all : undefined
  }
}

function write(text: string): Promise<void> {
  if (!text) return Promise.resolve()
  return new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())))
}
