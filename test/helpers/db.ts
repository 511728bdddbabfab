import { randomBytes } from 'node:crypto'
import { migrate, openDatabase, type Database } from '../../server/db/database.js'

// A fresh, migrated database for one test file: PGlite in memory, copied from a
// template migrated once per process; or, with DATABASE_URL, a schema of its own
// in that PostgreSQL, dropped on close.

let template: Promise<Blob> | undefined

async function pgliteTemplate(): Promise<Blob> {
  const d = await openDatabase({})
  await migrate(d.db)
  const dump = await d.pglite!.dumpDataDir('none')
  await d.close()
  return dump
}

export async function testDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL
  if (!url) {
    template ??= pgliteTemplate()
    return openDatabase({ loadDataDir: await template })
  }
  const schema = `t_${randomBytes(6).toString('hex')}`
  const admin = await openDatabase({ url, poolSize: 1 })
  await admin.db.schema.createSchema(schema).execute()
  await admin.close()
  const d = await openDatabase({ url, schema, poolSize: 5 })
  await migrate(d.db, { schema })
  return {
    ...d,
    close: async () => {
      await d.db.schema.dropSchema(schema).cascade().execute()
      await d.close()
    },
  }
}
