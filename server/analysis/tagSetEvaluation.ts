import { sql } from 'kysely'
import type { Db } from '../db/schema.js'
import { CallMatcher, RankedScores, type CurvePoint, type Scores, type Span } from './evaluation.js'

// A tag set's tags scored against a gold tag set's (README, "Evaluating a detector"; docs/decisions.md §25),
// with the matching and scores of evaluation.ts. Only the media files the gold set has a tag on are evaluated.
// The gold set is read whole, a page at a time, its tags kept grouped by media file and class; the evaluated
// set's tags on those files are then read strongest first (the index on tag_set_id, strength; ties by id after
// an incremental sort, docs/decisions.md §41), a page at a time, each matched as it comes and added to its
// class's scores and the pooled ones: what is kept is the gold set's spans and a bounded curve per class,
// whatever the size of the evaluated set.

const PAGE = 5_000

/** How the classes of the two sets are matched: by id when both sets are of one library, else by name. */
export type ClassesMatchedBy = 'id' | 'className'

export interface EvaluationRequest {
  tagSet: number
  against: number
  iou: number
  minimumStrength?: number
  classesBy: ClassesMatchedBy
}

export interface ClassEvaluation extends Scores {
  /** the gold set's class (the evaluated set's when the gold set has none of the name) */
  tagClass: number
  className: string
  curve: CurvePoint[]
}

export interface Evaluation {
  /** the media files the gold set has tags on */
  mediaFiles: number
  classes: ClassEvaluation[]
  /** every class's detections ranked together, with the mean of the classes' average precisions */
  overall: Scores & { meanAveragePrecision: number | null }
}

interface TagRow {
  id: number
  media_file_id: number
  tag_class_id: number
  start_time: number
  end_time: number
  strength: number
}

/** The class a tag is counted in, and the id and name reported for it. */
interface ClassKeys {
  keyOf(tagClass: number): string
  add(ids: Iterable<number>): Promise<void>
  name(tagClass: number): string
}

function classKeys(db: Db, by: ClassesMatchedBy): ClassKeys {
  const names = new Map<number, string>()
  return {
    keyOf: (id) => (by === 'id' ? String(id) : `name:${names.get(id) ?? ''}`),
    name: (id) => names.get(id) ?? '',
    async add(ids) {
      const unknown = [...new Set(ids)].filter((id) => !names.has(id))
      if (!unknown.length) return
      const rows = await db.selectFrom('tag_classes').select(['id', 'class_name']).where('id', 'in', unknown).execute()
      for (const r of rows) names.set(r.id, r.class_name)
    },
  }
}

/** A tag set's tags in id order, a page at a time. */
async function* pagesById(db: Db, tagSet: number): AsyncGenerator<TagRow[]> {
  let after = 0
  for (;;) {
    const rows = await db
      .selectFrom('tags')
      .select(['id', 'media_file_id', 'tag_class_id', 'start_time', 'end_time', 'strength'])
      .where('tag_set_id', '=', tagSet)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute()
    if (rows.length) yield rows
    if (rows.length < PAGE) return
    after = rows[rows.length - 1].id
  }
}

/** A tag set's tags on `mediaFiles`, strongest first (ties by id), those whose strength is not a number last,
 * a page at a time. */
async function* pagesByStrength(db: Db, tagSet: number, mediaFiles: number[]): AsyncGenerator<TagRow[]> {
  const base = () =>
    db
      .selectFrom('tags')
      .select(['id', 'media_file_id', 'tag_class_id', 'start_time', 'end_time', 'strength'])
      .where('tag_set_id', '=', tagSet)
      .where(sql<boolean>`media_file_id = any(${mediaFiles}::integer[])`)
  // numbers, from the strongest; PostgreSQL orders NaN above them, so it is read apart, last
  let last: { strength: number; id: number } | null = null
  for (;;) {
    let q = base().where(sql<boolean>`strength <> 'NaN'::double precision`)
    if (last) {
      const { strength, id } = last
      q = q.where((eb) =>
        eb.or([eb('strength', '<', strength), eb.and([eb('strength', '=', strength), eb('id', '>', id)])]),
      )
    }
    const rows = await q.orderBy('strength', 'desc').orderBy('id').limit(PAGE).execute()
    if (rows.length) yield rows
    if (rows.length < PAGE) break
    last = rows[rows.length - 1]
  }
  let after = 0
  for (;;) {
    const rows = await base()
      .where(sql<boolean>`strength = 'NaN'::double precision`)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute()
    if (rows.length) yield rows
    if (rows.length < PAGE) return
    after = rows[rows.length - 1].id
  }
}

interface GoldClass {
  tagClass: number
  calls: number
}

export async function evaluateTagSet(db: Db, r: EvaluationRequest): Promise<Evaluation> {
  const classes = classKeys(db, r.classesBy)
  // the gold set's spans by media file and class key
  const goldRows = new Map<number, Map<string, Span[]>>()
  const goldClasses = new Map<string, GoldClass>()
  for await (const page of pagesById(db, r.against)) {
    await classes.add(page.map((t) => t.tag_class_id))
    for (const t of page) {
      const key = classes.keyOf(t.tag_class_id)
      let byClass = goldRows.get(t.media_file_id)
      if (!byClass) goldRows.set(t.media_file_id, (byClass = new Map()))
      let spans = byClass.get(key)
      if (!spans) byClass.set(key, (spans = []))
      spans.push({ start: t.start_time, end: t.end_time })
      const c = goldClasses.get(key)
      if (c) c.calls++
      else goldClasses.set(key, { tagClass: t.tag_class_id, calls: 1 })
    }
  }
  const matchers = new Map<number, Map<string, CallMatcher>>()
  for (const [file, byClass] of goldRows) {
    matchers.set(file, new Map([...byClass].map(([key, spans]) => [key, new CallMatcher(spans, r.iou)])))
  }

  const scores = new Map<string, { tagClass: number; acc: RankedScores }>()
  const pooled = new RankedScores(r.minimumStrength)
  for (const [key, c] of goldClasses)
    scores.set(key, { tagClass: c.tagClass, acc: new RankedScores(r.minimumStrength) })
  for await (const page of pagesByStrength(db, r.tagSet, [...goldRows.keys()])) {
    await classes.add(page.map((t) => t.tag_class_id))
    for (const t of page) {
      const key = classes.keyOf(t.tag_class_id)
      const matched =
        (matchers.get(t.media_file_id)?.get(key)?.match({ start: t.start_time, end: t.end_time }) ?? -1) >= 0
      let s = scores.get(key)
      if (!s) scores.set(key, (s = { tagClass: t.tag_class_id, acc: new RankedScores(r.minimumStrength) }))
      s.acc.add(t.strength, matched)
      pooled.add(t.strength, matched)
    }
  }

  const rows: ClassEvaluation[] = [...scores]
    .map(([key, { tagClass, acc }]) => {
      const gold = goldClasses.get(key)?.calls ?? 0
      return { tagClass, className: classes.name(tagClass), ...acc.scores(gold), curve: acc.curve(gold) }
    })
    .sort((a, b) => a.className.localeCompare(b.className) || a.tagClass - b.tagClass)
  const gold = [...goldClasses.values()].reduce((n, c) => n + c.calls, 0)
  const averages = rows.filter((c) => c.averagePrecision !== null).map((c) => c.averagePrecision as number)
  return {
    mediaFiles: goldRows.size,
    classes: rows,
    overall: {
      ...pooled.scores(gold),
      meanAveragePrecision: averages.length ? averages.reduce((a, b) => a + b, 0) / averages.length : null,
    },
  }
}
