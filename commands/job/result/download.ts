import { pipeline } from 'node:stream/promises'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ApiError } from '../../../src/api.js'
import { AuthCommand } from '../../../src/baseCommand.js'
import { failure, usageError } from '../../../src/exits.js'
import { Progress } from '../../../src/output.js'
import { saveAtomically } from '../../../src/saveFile.js'

export default class JobResultDownload extends AuthCommand<typeof JobResultDownload> {
  static summary = 'Download a result file to a file or stdout'
  static examples = [
    '<%= config.bin %> job result download 1 -o detections.csv',
    '<%= config.bin %> job result download 1 > detections.csv',
    '<%= config.bin %> job result download 1 -o - | head',
  ]
  static args = { id: Args.integer({ description: 'result file id', required: true, min: 1 }) }
  static flags = { output: Flags.string({ char: 'o', description: 'file to write (default, and -: stdout)' }) }

  async run() {
    // -o - is stdout, as for most tools that write files
    const out = this.flags.output === '-' ? undefined : this.flags.output
    if (!out && this.jsonEnabled()) usageError('Give --output (-o) FILE with --json (stdout holds the JSON)')
    const meta = await this.api.get(`jobResultFile/${this.args.id}/`)
    if (!meta.resultFile) failure(`Result file ${this.args.id} has no file`)
    const body = await this.api.download(meta.resultFile).catch((err) => {
      // the original service keeps the records of result files but serves no files
      if (err instanceof ApiError && err.status === 404)
        failure(`The server does not serve the file of result file ${this.args.id} (${meta.resultFile} answered 404)`)
      throw err
    })
    const size = Number(body.response?.headers['content-length'] ?? 0)
    const progress = new Progress(size, {
      unit: 'bytes',
      quiet: this.jsonEnabled() || (!out && process.stdout.isTTY), // no bar amid the file's bytes on a terminal
      interrupted: (done, total) =>
        `interrupted: ${done} of ${total} bytes received${out ? `, ${out} not written` : ''}; re-run to download the file`,
    })
    body.on('data', (chunk: Buffer) => progress.tick(chunk.length))
    try {
      if (out) await saveAtomically(body, out)
      else await pipeline(body, process.stdout, { end: false })
    } finally {
      progress.stop()
    }
    if (out) this.logToStderr(`Saved ${out}`)
    return { ...meta, ...(out ? { savedTo: out } : {}) }
  }
}
