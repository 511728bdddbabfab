import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { JOB_STATUS } from '../../src/columns.js'
import { JOB_TYPE_PARAMS } from '../../server/analysis/catalog.js'
import { JOB_TYPES, LIBRARIES, TAG_SETS, USERS } from '../../src/names.js'
import { record } from '../../src/output.js'

export default class JobGet extends AuthCommand<typeof JobGet> {
  static summary = 'Show one job, its state and parameters'
  static examples = ['<%= config.bin %> job get 1', '<%= config.bin %> job get 1 --json']
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const job = await this.api.get(`jobs/${this.args.id}/`)
    if (this.jsonEnabled()) return job
    const { jobparameters_set: params, waitingFor, ...rest } = job
    const names = await this.names([JOB_TYPES, USERS, LIBRARIES, TAG_SETS], {})
    const shown: Record<string, unknown> = {
      ...rest,
      type: `${names.of(JOB_TYPES, job.type)} (${job.type})`,
      status: `${JOB_STATUS[job.status] ?? ''} (${job.status})`,
    }
    if ('user' in job) shown.user = names.of(USERS, job.user)
    // what a job created before its parameters still needs before a worker runs it (mas's extension field)
    if (Array.isArray(waitingFor) && waitingFor.length) shown.waitingFor = waitingFor.join(', ')
    // a parameter naming a library, tag set or media file by id shows its name too, as the type does
    const kinds = JOB_TYPE_PARAMS.find((t) => t.id === job.type)?.params ?? {}
    for (const p of (Array.isArray(params) ? params : []) as Array<{ name: string; value: string }>) {
      const kind = kinds[p.name]?.kind
      const id = /^\d+$/.test(p.value) ? Number(p.value) : undefined
      const name =
        id === undefined
          ? undefined
          : kind === 'library'
            ? names.of(LIBRARIES, id)
            : kind === 'tagSet'
              ? names.of(TAG_SETS, id)
              : kind === 'mediaFile'
                ? await this.api.get(`mediaFile/${id}/`).then(
                    (m) => m.alias,
                    () => undefined,
                  )
                : undefined
      shown[`param ${p.name}`] = typeof name === 'string' && name !== '' ? `${name} (${id})` : p.value
    }
    this.log(record(shown))
    return job
  }
}
