import { ReportCommand } from '../../src/reportCommand.js'

export default class ReportCoverage extends ReportCommand {
  static summary = 'Recording coverage: hours recorded per site and day'
  static description =
    "From each recording's start time and duration, a recording past midnight split between its days; a table of days (rows) by site (columns); -o draws a site × day grid. Over a tag set, or the tags of every tag set you read on a library's or a project's recordings; local times are the recordings' start times as stored, or shifted from UTC by --tz."
  static examples = [
    '<%= config.bin %> report coverage --tag-set "expert labels" --minimum-strength 0.8',
    '<%= config.bin %> report coverage --library "Dawn chorus 2026" --reviewed-only -o coverage.png',
    '<%= config.bin %> report coverage --project "nest survey" --tz Europe/Paris --json',
  ]

  protected readonly report = 'coverage' as const
}
