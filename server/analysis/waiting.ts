import { sql, type Expression, type RawBuilder } from 'kysely'
import { RUNNABLE_TYPE_PARAMS, type TypeParams } from './catalog.js'

// A job created the original's way (POST jobs/ without our `parameters` object, then one jobParameters/
// row at a time) waits, queued, until it has every parameter its type requires, every parameter that one
// it has needs (`folder` needs `library`), and, when its type reads media files and neither a mediaFileId
// nor a library names them, a project (docs/decisions.md §8). What it waits for is the record's
// `waitingFor`; no worker claims a job that waits for anything.

const PROJECT = 'project'
/** the parameters that name a type's media without a project */
const MEDIA_WITHOUT_PROJECT = ['mediaFileId', 'library']

const requiredOf = (t: TypeParams) =>
  Object.entries(t.params)
    .filter(([, p]) => p.required)
    .map(([name]) => name)
/** [parameter, the one it needs] of a type, where the one needed is not required anyway */
const needsOf = (t: TypeParams) =>
  Object.entries(t.params).flatMap(([name, p]) =>
    p.needs && !t.params[p.needs]?.required ? [[name, p.needs] as const] : [],
  )
const typeOf = new Map(RUNNABLE_TYPE_PARAMS.map((t) => [t.id, t]))

/** What a job of type `typeId` with these parameters and project still waits for, in the type's order. */
export function waitingFor(typeId: number, projectId: number | null, names: Iterable<string>): string[] {
  const type = typeOf.get(typeId)
  if (!type) return []
  const given = new Set(names)
  const missing = requiredOf(type).filter((n) => !given.has(n))
  for (const [name, needs] of needsOf(type)) if (given.has(name) && !given.has(needs)) missing.push(needs)
  if (type.projectMedia && projectId === null && !MEDIA_WITHOUT_PROJECT.some((n) => given.has(n))) missing.push(PROJECT)
  return missing
}

/** The same as SQL over the job `job` (an alias of the jobs table): a text[] of what it waits for. Only the
 * rules of the job's own type are evaluated, each a containment test of the parameters kept in the job's row
 * (`parameters_json`, written in the same statement as any change to them), so the statement holds no
 * subquery: a lookup of job_parameters per rule made every execution of a job list set up some forty
 * subplans, most of its cost (BENCHMARKS.md, "The job list's waitingFor"). */
export function waitingForSql(job: string): RawBuilder<string[]> {
  const has = (name: string) => sql`${sql.ref(`${job}.parameters_json`)}::jsonb @> ${JSON.stringify([{ name }])}::jsonb`
  const byType: Expression<unknown>[] = []
  for (const t of RUNNABLE_TYPE_PARAMS) {
    const items: Expression<unknown>[] = []
    for (const name of requiredOf(t)) items.push(sql`case when not ${has(name)} then ${name}::text end`)
    for (const [name, needs] of needsOf(t))
      items.push(sql`case when ${has(name)} and not ${has(needs)} then ${needs}::text end`)
    if (t.projectMedia) {
      const noMedia = sql.join(
        MEDIA_WITHOUT_PROJECT.map((n) => sql`not ${has(n)}`),
        sql` and `,
      )
      items.push(sql`case when ${sql.ref(`${job}.project_id`)} is null and ${noMedia} then ${PROJECT}::text end`)
    }
    if (items.length) byType.push(sql`when ${t.id} then array_remove(array[${sql.join(items)}]::text[], null)`)
  }
  return sql<string[]>`case ${sql.ref(`${job}.type_id`)} ${sql.join(byType, sql` `)} else '{}'::text[] end`
}

/** SQL: the job `job` waits for nothing. */
export const waitsForNothing = (job: string): RawBuilder<boolean> =>
  sql<boolean>`cardinality(${waitingForSql(job)}) = 0`
