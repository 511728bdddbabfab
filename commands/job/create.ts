import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { usageError } from '../../src/exits.js'
import { closest } from '../../src/closest.js'
import { createJob, defaultJobName } from '../../src/jobCreate.js'
import { paramsWithIds } from '../../src/jobParamNames.js'
import { jobTypeId, projectId, scopeLibrary } from '../../src/lookup.js'
import { describeParams, JOB_TYPE_PARAMS } from '../../server/analysis/catalog.js'

export default class JobCreate extends AuthCommand<typeof JobCreate> {
  static summary = 'Queue a job; prints its id'
  static description = [
    'The type is a name from jobTypes/ (e.g. RandomWindowTagging) or its id. Parameters are name=value pairs;',
    'a parameter with a default may be left out, a required one may not. A library, tag set or media file',
    'parameter takes a name as well as an id (media files by alias or file name, in --library when given).',
    'A type that writes tags refuses a parameter it does not take: misspelt, it would run with its default.',
    'A type that reads media files searches the files of --project, of --library (within --folder), or of both',
    "(the project's files in that library), as they are when the job runs; --param mediaFileId=FILE reads one.",
    'The built-in types and their parameters:',
    ...JOB_TYPE_PARAMS.flatMap((t) => ['', `${t.name} (${t.id})`, ...describeParams(t).map((l) => `- ${l}`)]),
  ].join('\n')
  static examples = [
    '<%= config.bin %> job create --project 1 --type Test',
    '<%= config.bin %> job create --project 1 --type RandomWindowTagging --param windowSizeInSeconds=2 --param numWindowsToTag=5 --param destinationTagSet=1',
    '<%= config.bin %> job create --project 1 --type RandomWindowTagging --param destinationTagSet=scratch --param mediaFileId=dawn.wav --library 1',
    '<%= config.bin %> job create --library "Dawn chorus 2026" --folder siteA/2026-05-01/ --type RandomWindowTagging --param destinationTagSet=scratch --param numWindowsToTag=5',
  ]

  static flags = {
    project: Flags.string({
      char: 'p',
      description: 'project (name or id): a type that reads media files searches its files',
    }),
    type: Flags.string({ char: 't', description: 'job type name or id', required: true }),
    param: Flags.string({ description: 'a parameter as name=value (repeatable)', multiple: true }),
    name: Flags.string({ description: 'job name [default: the type and the time, e.g. "Test 2026-11-24 01:02:03"]' }),
    priority: Flags.integer({ description: 'priority (higher runs first)' }),
    library: Flags.string({
      char: 'l',
      description:
        "library (name or id): the job's library parameter, for a type that takes one (a type that reads media files " +
        'searches it), unless --param mediaFileId names one file; media files named in --param are looked up in it',
    }),
    folder: Flags.string({
      description:
        'with --library: search only the media files whose alias starts with this (its folder parameter), e.g. site-A/2024/',
      dependsOn: ['library'],
    }),
  }

  async run() {
    const parameters: Record<string, string> = {}
    for (const p of this.flags.param ?? []) {
      const eq = p.indexOf('=')
      if (eq <= 0) usageError(`--param takes name=value, not "${p}"`)
      parameters[p.slice(0, eq)] = p.slice(eq + 1)
    }
    const type = await jobTypeId(this.api, this.flags.type)
    const known = JOB_TYPE_PARAMS.find((t) => t.id === type)
    // The server keeps a parameter no type reads, as the original does. For a type that writes tags, a misspelt
    // one would run with the default and replace the undecided tags of the run before: refused here.
    for (const name of Object.keys(parameters)) {
      if (!known?.params.destinationTagSet || name in known.params) continue
      const names = Object.keys(known.params)
      const near = closest(name, names)
      usageError(
        `--param ${name}: jobs of type ${known.name} have no parameter ${name}.` +
          `${near ? ` Did you mean ${near}?` : ''} (they take ${names.join(', ')})`,
      )
    }
    const library = await scopeLibrary(this.api, this.flags.library)
    // one media file: --library only says where its name is looked up, so a reader of that library may run the job
    const oneFile = parameters.mediaFileId !== undefined
    if (this.flags.folder !== undefined) {
      if (!known?.params.folder) usageError(`--folder: jobs of type ${this.flags.type} read no library's folders`)
      if (oneFile) usageError('--folder: a job given --param mediaFileId reads that one file, not a folder')
      parameters.folder ??= this.flags.folder
    }
    if (library !== undefined && !oneFile && known?.params.library?.kind === 'library')
      parameters.library ??= String(library)
    if (
      known?.projectMedia &&
      this.flags.project === undefined &&
      parameters.library === undefined &&
      parameters.mediaFileId === undefined
    ) {
      usageError(`${known.name} reads media files: give --project, --library or --param mediaFileId`)
    }
    const named = await paramsWithIds(this.api, type, parameters, library)
    const name = this.flags.name ?? defaultJobName((await this.api.get(`jobTypes/${type}/`)).name)
    const project =
      this.flags.project === undefined ? undefined : await projectId(this.api, '--project', this.flags.project)
    const job = await createJob(this.api, { project, type, name, priority: this.flags.priority, parameters: named })
    this.log(String(job.id))
    return job
  }
}
