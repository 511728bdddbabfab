import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/baseCommand.js'
import { count } from '../../src/confirm.js'
import { findTagSet } from '../../src/lookup.js'
import { stderr, table } from '../../src/output.js'
import { tagSetNamed } from '../../server/named.js'

interface Band {
  min: number
  max: number
  tags: number
  yes: number
  no: number
  unsure: number
  precision: number | null
  low: number | null
  high: number | null
}
interface ClassSummary {
  tagClass: number
  className: string
  tags: number
  decisions: Record<'yes' | 'no' | 'unsure' | 'skip', number>
  consensus: Record<'yes' | 'no' | 'unsure', number>
  bands: Band[]
  thresholds: Array<{ threshold: number; tags: number; precision: number | null }>
  at90: { threshold: number; tags: number } | null
  at95: { threshold: number; tags: number } | null
  disagreementRate: number | null
}
interface Summary {
  tagSet: number
  tags: number
  decidedTags: number
  disagreementRate: number | null
  classes: ClassSummary[]
}

const pct = (p: number | null | undefined) => (p === null || p === undefined ? '-' : `${(p * 100).toFixed(1)}%`)
const threshold = (t: { threshold: number; tags: number } | null) =>
  t ? `>= ${t.threshold} (${count(t.tags, 'tag')})` : '-'
const interval = (b: Band) => (b.low === null || b.high === null ? '-' : `${pct(b.low)}-${pct(b.high)}`)

/** A row of the band table: a class's band with its tags, and what keeping the tags from its lower edge up gives. */
interface BandRow {
  className: string
  band: Band
  kept: ClassSummary['thresholds'][number] | undefined
}

/** Each class's bands that hold tags, weakest first. */
const bandRows = (classes: readonly ClassSummary[]): BandRow[] =>
  classes.flatMap((c) =>
    (c.bands ?? [])
      .map((band, i) => ({ className: String(c.className || c.tagClass), band, kept: c.thresholds[i] }))
      .filter((r) => r.band.tags > 0),
  )

export default class ReviewSummary extends AuthCommand<typeof ReviewSummary> {
  static summary =
    "What the decisions on a tag set's tags say: per class, the decisions, the precision, and the strength above which 90% and 95% of tags are right"
  static description =
    "Precision is estimated per strength band (ten bands of 0.1) from the consensus of the decisions (the majority; a tie is unsure), and above a threshold weighted by the number of tags in each band. A second table shows each class's bands that hold tags: their tags and decisions, the precision with its Wilson 95% interval, and the tags kept (and their estimated precision) from the band's lower edge up. --json prints the whole summary."
  static examples = [
    '<%= config.bin %> review summary --tag-set 1',
    '<%= config.bin %> review summary --tag-set 1 --json',
  ]
  static flags = { 'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }) }

  async run(): Promise<Summary> {
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const s = await this.api.get<Summary>(`tagSet/${tagSet.id}/reviewSummary/`)
    if (this.jsonEnabled()) return s
    this.log(
      table(s.classes, [
        { header: 'class', get: (c) => c.className || c.tagClass },
        { header: 'tags', get: (c) => c.tags },
        { header: 'yes', get: (c) => c.consensus.yes },
        { header: 'no', get: (c) => c.consensus.no },
        { header: 'unsure', get: (c) => c.consensus.unsure },
        { header: 'skip', get: (c) => c.decisions.skip },
        { header: 'precision', get: (c) => pct(c.thresholds[0]?.precision) },
        { header: '90% from', get: (c) => threshold(c.at90) },
        { header: '95% from', get: (c) => threshold(c.at95) },
        { header: 'disagree', get: (c) => pct(c.disagreementRate) },
      ]).trimEnd(),
    )
    const bands = bandRows(s.classes)
    if (bands.length) {
      this.log('')
      this.log(
        table(bands, [
          { header: 'class', get: (r) => r.className },
          { header: 'strength', get: (r) => `${r.band.min.toFixed(1)}-${r.band.max.toFixed(1)}` },
          { header: 'tags', get: (r) => r.band.tags },
          { header: 'yes', get: (r) => r.band.yes },
          { header: 'no', get: (r) => r.band.no },
          { header: 'unsure', get: (r) => r.band.unsure },
          { header: 'precision', get: (r) => pct(r.band.precision) },
          { header: '95% interval', get: (r) => interval(r.band) },
          {
            header: 'kept from here',
            get: (r) => (r.kept ? `${count(r.kept.tags, 'tag')}, ${pct(r.kept.precision)}` : '-'),
          },
        ]).trimEnd(),
      )
    }
    const agreement =
      s.disagreementRate === null || s.disagreementRate === undefined
        ? 'no tag was decided by more than one reviewer'
        : `reviewers disagree on ${pct(s.disagreementRate)} of the tags several decided`
    stderr(`${s.decidedTags} of ${s.tags} tags decided in ${tagSetNamed(tagSet)}; ${agreement}`)
    return s
  }
}
