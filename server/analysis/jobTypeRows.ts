import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { ALL_JOB_TYPES, type NamedType } from './catalog.js'

// The job_types lookup rows were written by the first migration, which never changes and imports no app code;
// the catalog is where a type is declared. Every start compares the two, so a type added to one and not the
// other (a new type needs a new migration adding its row) stops the server with the difference named.

export class JobTypeRowsDiffer extends Error {}

/** What differs between the rows and the catalog, one phrase each; empty when they agree. */
export function jobTypeDifferences(
  rows: readonly NamedType[],
  declared: readonly NamedType[] = ALL_JOB_TYPES,
): string[] {
  const stored = new Map(rows.map((r) => [r.id, r.name]))
  const known = new Map(declared.map((t) => [t.id, t.name]))
  const out: string[] = []
  for (const [id, name] of known) {
    const row = stored.get(id)
    if (row === undefined) out.push(`type ${id} ${name} has no row`)
    else if (row !== name) out.push(`type ${id} is ${name} in the catalog but ${row} in the database`)
  }
  for (const [id, name] of stored) if (!known.has(id)) out.push(`row ${id} ${name} is no type of the catalog`)
  return out
}

export async function checkJobTypeRows(db: Kysely<DB>): Promise<void> {
  const rows = await db.selectFrom('job_types').select(['id', 'name']).orderBy('id').execute()
  const differences = jobTypeDifferences(rows)
  if (differences.length) {
    throw new JobTypeRowsDiffer(
      `The job_types table differs from server/analysis/catalog.ts: ${differences.join('; ')}.`,
    )
  }
}
