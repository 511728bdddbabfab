import { ReportCommand } from '../../src/reportCommand.js'

export default class ReportAccumulation extends ReportCommand {
  static summary = 'Species accumulation: the classes detected up to each recording day'
  static description =
    "A row per day the recordings cover (or with a detection): the classes detected so far and those new that day; -o draws the accumulation curve. Over a tag set, or the tags of every tag set you read on a library's or a project's recordings; local times are the recordings' start times as stored, or shifted from UTC by --tz."
  static examples = [
    '<%= config.bin %> report accumulation --tag-set "expert labels" --minimum-strength 0.8',
    '<%= config.bin %> report accumulation --library "Dawn chorus 2026" --reviewed-only -o accumulation.png',
    '<%= config.bin %> report accumulation --project "nest survey" --tz Europe/Paris --json',
  ]

  protected readonly report = 'accumulation' as const
}
