import { ReportCommand } from '../../src/reportCommand.js'

export default class ReportMatrix extends ReportCommand {
  static summary = 'The detection matrix: detections per site and day, per class'
  static description =
    "A site is the recording's sensor, else its folder (. for a file at the top); -o draws a site × day grid per class. Over a tag set, or the tags of every tag set you read on a library's or a project's recordings; local times are the recordings' start times as stored, or shifted from UTC by --tz."
  static examples = [
    '<%= config.bin %> report matrix --tag-set "expert labels" --minimum-strength 0.8',
    '<%= config.bin %> report matrix --library "Dawn chorus 2026" --reviewed-only -o matrix.png',
    '<%= config.bin %> report matrix --project "nest survey" --tz Europe/Paris --json',
  ]

  protected readonly report = 'matrix' as const
}
