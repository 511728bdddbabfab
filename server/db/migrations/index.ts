import type { Migration, MigrationProvider } from 'kysely'
import * as initial from './2026_11_21_0001_initial.js'

// Listed by hand so the compiled server needs no directory scan; names sort by date.
const migrations: Record<string, Migration> = {
  '2026_11_21_0001_initial': initial,
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() { return migrations },
}
