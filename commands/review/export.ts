import * as Flags from '@oclif/core/flags'
import { mapLimit } from '../../src/api.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure } from '../../src/exits.js'
import { findTagSet, mediaFiles, tagClasses } from '../../src/lookup.js'
import { MEDIA_FILES, TAG_CLASSES, USERS } from '../../src/names.js'
import { ravenFile } from '../../src/raven.js'
import { checkRavenFlags, ravenFlags, writeRavenTables } from '../../src/ravenTables.js'
import { reviewCsv, type ExportRow } from '../../src/reviewFiles.js'
import { tagSetReviews } from '../../src/tagSetStream.js'
import { tagSetNamed } from '../../server/named.js'

export default class ReviewExport extends AuthCommand<typeof ReviewExport> {
  static summary =
    "Write the decisions on a tag set's tags to stdout: CSV, or a Raven Pro selection table with a Review column"
  static description = `One row per decision: the tag (id, media file, times, frequencies, class, strength), the reviewer, the decision, and for a "no" the class the reviewer named instead, with names beside the ids. What "mas review import" reads back.

--format raven writes the tags as "mas tag export --format raven" does, with the columns Review, Reviewer and Named Class added (a tag decided by several reviewers has a row for each). Decided tags in one sequence of recordings: one table, to stdout. In several: --per-sequence DIR writes a table per sequence below DIR, --per-file DIR one per recording; without either the command exits 2. --path-prefix and --waveform-rows are as in "mas tag export".`
  static examples = [
    '<%= config.bin %> review export --tag-set 1 > decisions.csv',
    '<%= config.bin %> review export --tag-set 1 --format raven > verified.selections.txt',
    '<%= config.bin %> review export --tag-set 1 --format raven --per-sequence verified --path-prefix "D:\\Field"',
  ]

  static flags = {
    'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }),
    format: Flags.option({
      options: ['csv', 'raven'] as const,
      default: 'csv' as const,
      description: 'output format',
    })(),
    ...ravenFlags,
  }

  async run(): Promise<ExportRow[]> {
    checkRavenFlags(this.flags, this.flags.format)
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const reviews = await tagSetReviews(this.api, tagSet.id)
    const ids = [...new Set(reviews.map((r) => r.tag))]
    const tags = new Map((await mapLimit(ids, 8, (id) => this.api.get(`tag/${id}/`))).map((t) => [t.id, t]))
    const library = tagSet.library ?? undefined
    const names = await this.names([USERS, TAG_CLASSES, MEDIA_FILES], { library })
    const username = this.profile?.username
    const rows: ExportRow[] = reviews.map((review) => {
      const tag = tags.get(review.tag)!
      const reviewer = names.of(USERS, review.user)
      return {
        review,
        tag,
        mediaFile: String(names.of(MEDIA_FILES, tag.mediaFile)),
        tagClass: String(names.of(TAG_CLASSES, tag.tagClass)),
        reviewer: String(reviewer === 'me' ? (username ?? review.user) : reviewer),
        namedClass: review.tagClass === null ? '' : String(names.of(TAG_CLASSES, review.tagClass)),
      }
    })
    if (this.jsonEnabled()) return rows
    if (this.flags.format === 'csv') {
      process.stdout.write(reviewCsv(rows))
      return rows
    }
    if (!library) failure(`${tagSetNamed(tagSet)} belongs to no library: a Raven table needs its recordings`)
    const [media, classes] = await Promise.all([mediaFiles(this.api, library), tagClasses(this.api, library)])
    const byRecord = new Map(rows.map((r) => [r.review.id, r]))
    const records = rows.map((r) => ({ ...r.tag, mas_review_id: r.review.id }))
    await writeRavenTables(
      this.api,
      records,
      media.records.map(ravenFile),
      (id) => classes.byId(id)?.className,
      this.flags,
      {
        columns: ['Review', 'Reviewer', 'Named Class'],
        cells: (t) => {
          const r = byRecord.get(Number(t.mas_review_id))!
          return [r.review.decision, r.reviewer, r.namedClass]
        },
      },
    )
    return rows
  }
}
