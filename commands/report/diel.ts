import { ReportCommand } from '../../src/reportCommand.js'

export default class ReportDiel extends ReportCommand {
  static summary = "Detections per hour of the recorders' local day, per class"
  static description =
    "A table of hours (rows) by class (columns); -o draws a line per class over the 24 hours. Over a tag set, or the tags of every tag set you read on a library's or a project's recordings; local times are the recordings' start times as stored, or shifted from UTC by --tz."
  static examples = [
    '<%= config.bin %> report diel --tag-set "expert labels" --minimum-strength 0.8',
    '<%= config.bin %> report diel --library "Dawn chorus 2026" --reviewed-only -o diel.png',
    '<%= config.bin %> report diel --project "nest survey" --tz Europe/Paris --json',
  ]

  protected readonly report = 'diel' as const
}
