import { AuthCommand } from '../../src/baseCommand.js'
import { listFlags } from '../../src/listOutput.js'
import { JOB_TYPE_PARAMS, type ParamSpec } from '../../server/analysis/catalog.js'

interface JobTypeRow {
  id: number
  name: string
  parameters: Record<string, ParamSpec>
  runs: boolean
}

export default class JobTypes extends AuthCommand<typeof JobTypes> {
  static summary = 'List the job types the server knows, with their parameters and defaults'
  static description =
    'Each parameter as name=default, name (required) when it has none to fall back on, or name? when it may be left out.' +
    " Types the server lists that no worker of mas runs (the original's, kept to name its jobs) say so."
  static examples = ['<%= config.bin %> job types', '<%= config.bin %> job types --json']
  static flags = listFlags

  async run(): Promise<JobTypeRow[]> {
    const types = await this.api.all('jobTypes/')
    const rows = types.map((t) => {
      const known = JOB_TYPE_PARAMS.find((p) => p.id === t.id)
      return { id: t.id, name: t.name, parameters: known?.params ?? {}, runs: known !== undefined }
    })
    return this.showList(rows, [
      { header: 'id', get: (r: JobTypeRow) => r.id },
      { header: 'name', get: (r: JobTypeRow) => r.name },
      {
        header: 'parameters',
        get: (r: JobTypeRow) =>
          r.runs
            ? Object.entries(r.parameters)
                .map(([name, p]) => describe(name, p))
                .join(' ')
            : '(no worker of mas runs it)',
      },
    ])
  }
}

function describe(name: string, p: ParamSpec): string {
  if (p.default !== undefined) return `${name}=${p.default}`
  return p.required ? `${name}(required)` : `${name}?`
}
