import { Flags } from '@oclif/core'
import { AuthCommand } from '../src/baseCommand.js'
import { findTagSet } from '../src/lookup.js'
import { stderr } from '../src/output.js'
import type { Job } from '../src/records.js'

export default class Train extends AuthCommand<typeof Train> {
  static summary = "Learn a classifier from the decisions on a tag set's tags and tag the library's strongest windows"
  static description =
    'Starts a TrainClassifier job: per class of the tags decided yes (mas review), a classifier over the stored ' +
    "embeddings of the decided windows and a sample of the library's others; every stored window of the library is scored and the " +
    "strongest are written to --destination-tag-set as machine tags. No audio is read. Prints the job's id; mas job watch follows it."
  static examples = [
    '<%= config.bin %> train --tag-set "rare call, reviewed" --destination-tag-set "rare call, found"',
    '<%= config.bin %> train --tag-set 12 --destination-tag-set 13 --kind perch --tags 500',
  ]
  static flags = {
    'tag-set': Flags.string({
      description: 'the tag set (name or id) whose decided tags teach the classifier',
      required: true,
    }),
    'destination-tag-set': Flags.string({
      description: 'the tag set (name or id) the strongest windows are written to',
      required: true,
    }),
    kind: Flags.string({ description: "the stored embeddings: builtin (default) or a model's name" }),
    tags: Flags.integer({ description: 'the most tags to write (default 100)', min: 1, max: 100_000 }),
    'minimum-strength': Flags.string({
      description: 'windows scored below this probability are not tagged (default 0.5)',
    }),
  }

  async run(): Promise<Job> {
    const source = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const destination = await findTagSet(this.api, '--destination-tag-set', this.flags['destination-tag-set'])
    const strength = this.flags['minimum-strength']
    const job = await this.api.post<Job>(`tagSet/${source.id}/train/`, {
      destinationTagSet: destination.id,
      ...(this.flags.kind !== undefined ? { kind: this.flags.kind } : {}),
      ...(this.flags.tags !== undefined ? { numberOfTagsToWrite: this.flags.tags } : {}),
      ...(strength !== undefined
        ? { minimumStrength: Number.isFinite(Number(strength)) ? Number(strength) : strength }
        : {}),
    })
    this.log(String(job.id))
    stderr(
      `job ${job.id} queued: learns from ${source.name} and writes to ${destination.name} (mas job watch ${job.id})`,
    )
    return job
  }
}
