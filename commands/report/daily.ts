import { ReportCommand } from '../../src/reportCommand.js'

export default class ReportDaily extends ReportCommand {
  static summary = 'Detections per day, per class'
  static description =
    "A table of days (rows) by class (columns); -o draws stacked bars per day. Over a tag set, or the tags of every tag set you read on a library's or a project's recordings; local times are the recordings' start times as stored, or shifted from UTC by --tz."
  static examples = [
    '<%= config.bin %> report daily --tag-set "expert labels" --minimum-strength 0.8',
    '<%= config.bin %> report daily --library "Dawn chorus 2026" --reviewed-only -o daily.png',
    '<%= config.bin %> report daily --project "nest survey" --tz Europe/Paris --json',
  ]

  protected readonly report = 'daily' as const
}
