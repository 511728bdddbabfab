import { ReportCommand } from '../../src/reportCommand.js'

export default class ReportDensity extends ReportCommand {
  static summary = 'Call density per class, with its 95% interval, from the review decisions'
  static description =
    "In each strength tenth (the strata of the review summary), the share of yes among the detections decided yes or no times the tenth's detections, with its Wilson interval, summed per class; tenths nobody decided are counted as unestimated. --reviewed-only does not apply. Over a tag set, or the tags of every tag set you read on a library's or a project's recordings; local times are the recordings' start times as stored, or shifted from UTC by --tz."
  static examples = [
    '<%= config.bin %> report density --tag-set "expert labels" --minimum-strength 0.8',
    '<%= config.bin %> report density --library "Dawn chorus 2026" -o density.png',
    '<%= config.bin %> report density --project "nest survey" --tz Europe/Paris --json',
  ]

  protected readonly report = 'density' as const
}
