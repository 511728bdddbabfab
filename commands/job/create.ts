import * as Flags from '@oclif/core/flags'
import { AuthCommand, usageError } from '../../src/baseCommand.js'
import { createJob, defaultJobName } from '../../src/jobCreate.js'
import { paramsWithIds } from '../../src/jobParamNames.js'
import { jobTypeId, LIBRARY_SCOPE_DESCRIPTION, projectId, scopeLibrary } from '../../src/lookup.js'
import { describeParams, JOB_TYPE_PARAMS } from '../../server/analysis/catalog.js'

export default class JobCreate extends AuthCommand<typeof JobCreate> {
  static summary = 'Queue a job in a project; prints its id'
  static description = [
    'The type is a name from jobTypes/ (e.g. RandomWindowTagging) or its id. Parameters are name=value pairs;',
    'a parameter with a default may be left out, a required one may not. A library, tag set or media file',
    'parameter takes a name as well as an id (media files by alias or file name, in --library when given).',
    'The built-in types and their parameters:',
    ...JOB_TYPE_PARAMS.flatMap((t) => ['', `${t.name} (${t.id})`, ...describeParams(t).map((l) => `- ${l}`)]),
  ].join('\n')
  static examples = [
    '<%= config.bin %> job create --project 1 --type Test',
    '<%= config.bin %> job create --project 1 --type RandomWindowTagging --param windowSizeInSeconds=2 --param numWindowsToTag=5 --param destinationTagSet=1',
    '<%= config.bin %> job create --project 1 --type RandomWindowTagging --param destinationTagSet=scratch --param mediaFileId=dawn.wav --library 1',
  ]

  static flags = {
    project: Flags.string({ char: 'p', description: 'project (name or id)', required: true }),
    type: Flags.string({ char: 't', description: 'job type name or id', required: true }),
    param: Flags.string({ description: 'a parameter as name=value (repeatable)', multiple: true }),
    name: Flags.string({ description: 'job name [default: the type and the time, e.g. "Test 2026-11-24 01:02:03"]' }),
    priority: Flags.integer({ description: 'priority (higher runs first)' }),
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }

  async run() {
    const parameters: Record<string, string> = {}
    for (const p of this.flags.param ?? []) {
      const eq = p.indexOf('=')
      if (eq <= 0) usageError(`--param takes name=value, not "${p}"`)
      parameters[p.slice(0, eq)] = p.slice(eq + 1)
    }
    const type = await jobTypeId(this.api, this.flags.type)
    const named = await paramsWithIds(this.api, type, parameters, await scopeLibrary(this.api, this.flags.library))
    const name = this.flags.name ?? defaultJobName((await this.api.get<{ name: string }>(`jobTypes/${type}/`)).name)
    const job = await createJob(this.api, { project: await projectId(this.api, '--project', this.flags.project), type, name, priority: this.flags.priority, parameters: named })
    this.log(String(job.id))
    return job
  }
}
