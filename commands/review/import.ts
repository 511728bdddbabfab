import { stat } from 'node:fs/promises'
import { Args, Flags } from '@oclif/core'
import { mapLimit, type ApiClient } from '../../src/api.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure, unreadable } from '../../src/exits.js'
import { findTagSet, mediaFiles, tagClasses } from '../../src/lookup.js'
import { parseRef } from '../../src/refs.js'
import { ownId } from '../../src/names.js'
import { stderr, thousandths } from '../../src/output.js'
import { parseReviews, TagFinder, VERDICT_COLUMNS, type ParsedReviews } from '../../src/reviewFiles.js'
import { tableFilesBelow } from '../../src/tableSources.js'
import { tagSetTagPages } from '../../src/tagSetStream.js'
import { readInput } from '../../src/stdin.js'
import { mediaFileNamed, tagSetNamed } from '../../server/named.js'

export default class ReviewImport extends AuthCommand<typeof ReviewImport> {
  static summary =
    "Record decisions made elsewhere (a CSV or a Raven table with a verdict column) as your decisions on a tag set's tags"
  static description = `The verdict is read from the first of ${VERDICT_COLUMNS.join(', ')} present (or --verdict-column): yes, no, unsure or skip (also y/n/u/s, true/false, 1/0, correct/incorrect); rows without one are left alone. A row finds its tag by mas_tag_id (as "mas tag export" and "mas review export" write it), else by its media file (name or id), start and end times and class (names looked up in the tag set's library, as "mas tag import" does). For a "no", namedClass (or mas_named_class_id) names the class the tag is instead.

Every row is checked first; if any is bad, the errors are listed and nothing is sent. Decisions you have already made as the file says are not sent again, so a re-run of the same file changes nothing.`
  static examples = [
    '<%= config.bin %> review import decisions.csv --tag-set 1',
    '<%= config.bin %> review import verified.selections.txt --tag-set 1 --verdict-column Review',
    '<%= config.bin %> review import decisions.csv verified.selections.txt --tag-set 1',
  ]

  static args = {
    file: Args.string({
      description: 'files or folders to read (the tables below a folder, at any depth), or - for stdin',
      required: true,
    }),
  }
  static strict = false
  static flags = {
    'tag-set': Flags.string({ description: 'tag set whose tags were decided (name or id)', required: true }),
    'verdict-column': Flags.string({ description: 'column holding the verdict' }),
  }

  async run() {
    const files = await this.files()
    // every file's rows, each error and row told by its file when there are several
    const parsed: ParsedReviews & { rows: Array<ParsedReviews['rows'][number] & { where: string }> } = {
      rows: [],
      errors: [],
      blank: 0,
    }
    let passedOver = 0
    for (const { name, belowFolder } of files) {
      const text = await readInput(name).catch((err: NodeJS.ErrnoException) => unreadable(name, err))
      const one = parseReviews(text, this.flags['verdict-column'])
      const at = files.length > 1 ? `${name}: ` : ''
      // below a folder, a table without a verdict column is no decisions file: passed over, and said so
      if (
        belowFolder &&
        !one.rows.length &&
        one.errors.length === 1 &&
        /^no (verdict column|column)/.test(one.errors[0])
      ) {
        stderr(`${name}: passed over: ${one.errors[0]}`)
        passedOver++
        continue
      }
      parsed.errors.push(...one.errors.map((e) => at + e))
      parsed.rows.push(...one.rows.map((r) => ({ ...r, where: `${at}line ${r.line}` })))
      parsed.blank += one.blank
    }
    if (passedOver === files.length) failure(`no table with a verdict column in ${this.positionals.join(' ')}`)
    const errors = [...parsed.errors]
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const needsNames = parsed.rows.some((r) => r.tagId === undefined || r.namedClass !== undefined)
    const library = tagSet.library
    if (needsNames && !library)
      failure(`${tagSetNamed(tagSet)} belongs to no library: rows without mas_tag_id need one to find their files`)
    // the set's tags are read once: whole where a row finds its tag by its place, else their ids alone
    const byPlace = parsed.rows.some((r) => r.tagId === undefined)
    const [media, classes, setTags, idsAlone, me] = await Promise.all([
      needsNames ? mediaFiles(this.api, library!) : undefined,
      needsNames ? tagClasses(this.api, library!) : undefined,
      byPlace ? this.api.all(`tagSet/${tagSet.id}/tags/`, { page_size: 1000 }) : [],
      byPlace ? undefined : tagIdsOf(this.api, tagSet.id),
      ownId(this.api),
    ])
    const setIds = idsAlone ?? new Set(setTags.map((t) => t.id))
    const finder = new TagFinder(setTags)
    const decisions: Array<{
      where: string
      body: { tag: number; decision: string; tagClass: number | null; note: string }
    }> = []
    for (const row of parsed.rows) {
      const where = row.where
      let tag = row.tagId
      // a decision is on a tag of the set named: an id from another set (or none) is refused before anything is sent
      if (tag !== undefined && !setIds.has(tag)) {
        errors.push(`${where}: no tag ${tag} in ${tagSetNamed(tagSet)}`)
        continue
      }
      if (tag === undefined) {
        const file =
          row.mediaFileId !== undefined &&
          media!.byId(row.mediaFileId) &&
          (row.mediaFile === undefined || media!.matches(row.mediaFile, row.mediaFileId))
            ? { id: row.mediaFileId }
            : media!.find(parseRef(row.mediaFile ?? String(row.mediaFileId)))
        const cls = row.tagClass === undefined ? undefined : classes!.find(parseRef(row.tagClass))
        if ('error' in file) {
          errors.push(`${where}: ${file.error}`)
          continue
        }
        if (cls && 'error' in cls) {
          errors.push(`${where}: ${cls.error}`)
          continue
        }
        const found = finder.find(file.id, row.startTime!, row.endTime!, cls?.id)
        if (found.length !== 1) {
          errors.push(
            `${where}: ${found.length ? `${found.length} tags` : 'no tag'} of ${tagSetNamed(tagSet)} at ${thousandths(row.startTime!)}-${thousandths(row.endTime!)} s` +
              ` in ${mediaFileNamed(media!.byId(file.id) ?? file)}${row.tagClass ? ` of class ${row.tagClass}` : ''}`,
          )
          continue
        }
        tag = found[0].id
      }
      let named: number | null = null
      if (row.namedClass !== undefined) {
        const cls = classes!.find(parseRef(row.namedClass))
        if ('error' in cls) {
          errors.push(`${where}: namedClass: ${cls.error}`)
          continue
        }
        named = cls.id
      }
      decisions.push({ where: row.where, body: { tag, decision: row.decision, tagClass: named, note: row.note } })
    }
    if (errors.length) {
      failure(
        `${this.positionals.join(' ')}: ${errors.length} row${errors.length === 1 ? '' : 's'} refused, nothing sent:\n  ${errors.slice(0, 20).join('\n  ')}${errors.length > 20 ? `\n  and ${errors.length - 20} more` : ''}`,
      )
    }
    // what the caller has already decided as the file says is not sent again
    const mine = new Map(
      (await this.api.all('tagReview/', { tagSet: tagSet.id, user: me, page_size: 1000 }, undefined, ['tagSet'])).map(
        (r) => [r.tag, r],
      ),
    )
    const same = (b: (typeof decisions)[number]['body']) => {
      const r = mine.get(b.tag)
      return r !== undefined && r.decision === b.decision && r.tagClass === b.tagClass && r.note === b.note
    }
    const todo = decisions.filter((d) => !same(d.body))
    const answers = await mapLimit(todo, 8, async (d) => {
      try {
        return await this.api.post('tagReview/', d.body)
      } catch (err) {
        failure(`${d.where}: ${(err as Error).message}`)
      }
    })
    const changed = todo.filter((d) => mine.has(d.body.tag)).length
    stderr(
      `Recorded ${todo.length} decision${todo.length === 1 ? '' : 's'} on ${tagSetNamed(tagSet)}: ${todo.length - changed} new, ${changed} changed, ` +
        `${decisions.length - todo.length} already so${parsed.blank ? `; ${parsed.blank} row${parsed.blank === 1 ? '' : 's'} without a verdict left alone` : ''}`,
    )
    return answers
  }

  /** The files named, and the tables below the folders named (`-`: standard input). */
  private async files(): Promise<Array<{ name: string; belowFolder: boolean }>> {
    const out: Array<{ name: string; belowFolder: boolean }> = []
    for (const arg of this.positionals) {
      if (arg === '-' || !(await stat(arg).catch((err: NodeJS.ErrnoException) => unreadable(arg, err))).isDirectory()) {
        out.push({ name: arg, belowFolder: false })
        continue
      }
      const { tables } = await tableFilesBelow(arg)
      if (!tables.length) failure(`no table file (.csv, .txt, .tsv) below ${arg}`)
      out.push(...tables.map((name) => ({ name, belowFolder: true })))
    }
    return out
  }
}

/** The ids of the tag set's tags, read in one answer where the server offers it (src/tagSetStream.ts). */
async function tagIdsOf(api: ApiClient, tagSetId: number): Promise<Set<number>> {
  const ids = new Set<number>()
  for await (const page of tagSetTagPages<{ id: number }>(api, tagSetId, undefined, ['id']))
    for (const t of page) ids.add(t.id)
  return ids
}
