import type { ColumnType, Generated } from 'kysely'

// The kinds of column the row types share (./schema.ts, ./analysisTables.ts).

export type Id = Generated<number>
/** 'YYYY-MM-DD hh:mm:ss', as the database gives it (database.ts) */
export type Timestamp = string
export type WithDefault<T> = ColumnType<T, T | undefined, T>
/** a column only the database's triggers write (never given in an INSERT or UPDATE) */
export type WrittenByDatabase<T> = ColumnType<T, never, never>
