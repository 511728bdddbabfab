import { Flags } from '@oclif/core'
import { AuthCommand } from '../src/baseCommand.js'
import { count } from '../src/confirm.js'
import { writeNamedFile } from '../src/exits.js'
import { findTagSet } from '../src/lookup.js'
import { stderr, table } from '../src/output.js'
import { tagSetNamed } from '../server/named.js'
import { numberFlag } from '../src/numberFlag.js'

interface Scores {
  gold: number
  detections: number
  tp: number
  fp: number
  fn: number
  precision: number | null
  recall: number | null
  fMeasure: number | null
  averagePrecision: number | null
}
interface ClassEvaluation extends Scores {
  tagClass: number
  className: string
  curve: Array<{ threshold: number | null; precision: number; recall: number | null }>
}
interface Evaluation {
  tagSet: number
  against: number
  iou: number
  minimumStrength: number | null
  classesMatchedBy: 'id' | 'className'
  mediaFiles: number
  classes: ClassEvaluation[]
  overall: Scores & { meanAveragePrecision: number | null }
}

const ratio = (v: number | null) => (v === null ? '-' : v.toFixed(3))

export default class Eval extends AuthCommand<typeof Eval> {
  static summary =
    "Score a tag set's tags (a detector's) against a gold tag set: precision, recall, F and average precision per class"
  static description =
    'A tag matches a gold tag of its class on its media file when their time intersection over union is at least --iou ' +
    '(0.3 by default); tags are taken strongest first, each matching the unmatched gold tag it overlaps most, so each gold tag counts ' +
    'once. Only the media files the gold tag set has tags on are scored. Classes are matched by id, or by name when the two tag sets ' +
    'are of different libraries. Precision, recall and F are of the tags of at least --minimum-strength (every tag without it); ' +
    'average precision (AP) is over every tag ranked by strength. The last row pools every class. --json prints the whole answer, ' +
    "with each class's precision-recall curve; -o draws those curves as a PNG."
  static examples = [
    '<%= config.bin %> eval --tag-set 1 --against 1',
    '<%= config.bin %> eval --tag-set 1 --against 1 --iou 0.5 --minimum-strength 0.8',
    '<%= config.bin %> eval --tag-set 1 --against 1 --json',
    '<%= config.bin %> eval --tag-set 1 --against 1 -o curve.png',
  ]
  static flags = {
    'tag-set': Flags.string({ description: "the tag set to score (name or id): a detector's tags", required: true }),
    against: Flags.string({ description: 'the gold tag set (name or id): what people labelled', required: true }),
    iou: numberFlag('the least time intersection over union of a match, above 0 and at most 1 (default 0.3)'),
    'minimum-strength': numberFlag('score the tags of at least this strength (default: every tag)'),
    output: Flags.string({ char: 'o', description: 'PNG file to write the precision-recall curve of each class to' }),
  }

  async run(): Promise<Evaluation> {
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const gold = await findTagSet(this.api, '--against', this.flags.against)
    const e = await this.api.get<Evaluation>(`tagSet/${tagSet.id}/evaluate/`, {
      against: gold.id,
      iou: this.flags.iou,
      minimumStrength: this.flags['minimum-strength'],
    })
    if (this.flags.output) {
      const { precisionRecallPng } = await import('../src/prCurve.js')
      await writeNamedFile(
        '-o',
        this.flags.output,
        await precisionRecallPng(`${tagSet.name} against ${gold.name} (IoU ≥ ${e.iou})`, e.classes),
      )
    }
    if (this.jsonEnabled()) return e
    // the pooled row counts every tag and gold tag together; the mean of the classes' APs is said apart (mAP)
    const rows: Array<Scores & { className: string }> = [...e.classes, { className: '(all, pooled)', ...e.overall }]
    this.log(
      table(rows, [
        { header: 'class', get: (c) => c.className },
        { header: 'gold', get: (c) => c.gold },
        { header: 'detections', get: (c) => c.detections },
        { header: 'tp', get: (c) => c.tp },
        { header: 'fp', get: (c) => c.fp },
        { header: 'fn', get: (c) => c.fn },
        { header: 'precision', get: (c) => ratio(c.precision) },
        { header: 'recall', get: (c) => ratio(c.recall) },
        { header: 'F', get: (c) => ratio(c.fMeasure) },
        { header: 'AP', get: (c) => ratio(c.averagePrecision) },
      ]).trimEnd(),
    )
    const threshold = e.minimumStrength === null ? 'every tag' : `tags of strength >= ${e.minimumStrength}`
    stderr(
      `${tagSetNamed(tagSet)} against ${tagSetNamed(gold)}: ${threshold}, IoU >= ${e.iou}, ` +
        `${count(e.mediaFiles, 'media file')}, classes matched by ${e.classesMatchedBy === 'id' ? 'id' : 'name'}` +
        (e.overall.meanAveragePrecision === null
          ? ''
          : `; mean AP over classes (mAP) ${ratio(e.overall.meanAveragePrecision)}`) +
        (this.flags.output ? `; curves written to ${this.flags.output}` : ''),
    )
    if (e.overall.detections === 0 && e.overall.gold > 0) {
      stderr(
        `none of the tags of ${tagSetNamed(tagSet)} lie on ${e.mediaFiles === 1 ? 'that media file' : `those ${e.mediaFiles} media files`}: every gold tag is missed. ` +
          (gold.library !== tagSet.library
            ? `The two tag sets are of different libraries, and tags are matched on the same media files only: score against people's tags of the recordings ${tagSet.name} is on`
            : "A discovery job writes no tag on its examples, so score it against people's tags of the recordings it searched"),
      )
    }
    return e
  }
}
