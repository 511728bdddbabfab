import { createReadStream } from 'node:fs'
import { PassThrough } from 'node:stream'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import FormData from 'form-data'
import { ApiError } from '../../../src/api.js'
import { AuthCommand } from '../../../src/baseCommand.js'
import { usageError } from '../../../src/exits.js'
import { Progress } from '../../../src/output.js'

export default class JobResultUpload extends AuthCommand<typeof JobResultUpload> {
  static summary = 'Upload a result file of a job (streamed from disk); prints its id'
  static examples = ['<%= config.bin %> job result upload 1 detections.csv --notes "threshold 0.8"']
  static args = {
    job: Args.integer({ description: 'job id', required: true, min: 1 }),
    file: Args.string({ description: 'file to upload', required: true }),
  }

  static flags = { notes: Flags.string({ description: 'notes about the file' }) }

  async run() {
    const info = await stat(this.args.file).catch(() => undefined)
    if (!info?.isFile()) usageError(`FILE: no such file: ${this.args.file}`)
    const progress = new Progress(info.size, {
      unit: 'bytes',
      quiet: this.jsonEnabled(),
      interrupted: (done, total) =>
        `interrupted: ${done} of ${total} bytes sent, nothing was stored; re-run to upload the file`,
    })
    const answer = await this.api
      .upload(
        'jobResultFile/',
        () => {
          const form = new FormData()
          form.append('job', String(this.args.job))
          form.append('notes', this.flags.notes ?? '')
          // the bytes pass through a counter on their way to the request: the bar moves as they are read for sending
          const counted = createReadStream(this.args.file).pipe(new PassThrough())
          counted.on('data', (chunk: Buffer) => progress.tick(chunk.length))
          form.append('resultFile', counted, { filename: basename(this.args.file), knownLength: info.size })
          return form
        },
        { retry: false },
      )
      .finally(() => progress.stop())
    if (answer.status >= 400) throw new ApiError(answer.status, answer.data, 'POST', this.api.url('jobResultFile/'))
    this.log(String(answer.data.id))
    return answer.data
  }
}
