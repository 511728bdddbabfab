import { sql, type Kysely } from 'kysely'

// A media file keeps the JSON array of its metadata records (media_files.metadata_json), and a job that of
// its parameters (jobs.parameters_json), written by triggers on every change to those records, so that a
// list embedding them (mediaFile/, jobs/) reads one column instead of gathering and writing hundreds of
// records as JSON at each page: that was more than half of PostgreSQL's time on a page of media files
// (docs/decisions.md §11, BENCHMARKS.md). The records are those of the field declarations of
// mediaFileMetaData (server/resources/mediaMetadata.ts) and jobParameters (server/resources/jobParameters.ts),
// written as row_to_json writes them, in the order of their ids; a change to those fields is a new migration
// replacing the functions (test/server/embeddedListsJson.test.ts compares the arrays with what the server
// renders from the declarations).

/** An embedded list kept in its parent's row: the records of `child` whose `parentColumn` is the parent's id. */
interface Embedded {
  child: string
  parent: string
  parentColumn: string
  /** the parent's column holding the array */
  column: string
  /** the child's columns and their names in the JSON records, in the records' order */
  fields: Array<[column: string, name: string]>
}

const EMBEDDED: Embedded[] = [
  {
    child: 'media_file_metadata',
    parent: 'media_files',
    parentColumn: 'media_file_id',
    column: 'metadata_json',
    fields: [
      ['id', 'id'],
      ['media_file_id', 'mediaFile'],
      ['name', 'name'],
      ['value', 'value'],
      ['user_editable', 'userEditable'],
    ],
  },
  {
    child: 'job_parameters',
    parent: 'jobs',
    parentColumn: 'job_id',
    column: 'parameters_json',
    fields: [
      ['id', 'id'],
      ['job_id', 'job'],
      ['name', 'name'],
      ['value', 'value'],
    ],
  },
]

/** names of an embedded list's functions and triggers */
const named = (e: Embedded) => ({
  write: `${e.parent}_${e.column}`,
  changed: `${e.child}_changed`,
  trigger: (event: string) => `${e.child}_${event}_json`,
})

export async function up(db: Kysely<any>): Promise<void> {
  for (const e of EMBEDDED) {
    const n = named(e)
    const records = sql.join(e.fields.map(([c, name]) => sql`x.${sql.id(c)} as ${sql.id(name)}`))
    await sql`alter table ${sql.table(e.parent)} add column ${sql.id(e.column)} json not null default '[]'`.execute(db)
    // The parents are locked first, in order, and the array is written by the next statement, which (in READ
    // COMMITTED) sees whatever another transaction changing the same parent's records committed while this
    // one waited: two imports into one media file cannot leave either's records out.
    await sql`create function ${sql.id(n.write)}(ids integer[]) returns void language plpgsql as $$
      begin
        perform 1 from ${sql.table(e.parent)} p where p.id = any(ids) order by p.id for no key update;
        update ${sql.table(e.parent)} p set ${sql.id(e.column)} = coalesce((
            select array_to_json(array_agg(k order by k.id))
            from (select ${records} from ${sql.table(e.child)} x where x.${sql.id(e.parentColumn)} = p.id) as k),
          '[]'::json)
          where p.id = any(ids);
      end $$`.execute(db)
    await sql`create function ${sql.id(n.changed)}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform ${sql.id(n.write)}(array(select distinct ${sql.id(e.parentColumn)} from new_rows));
        elsif tg_op = 'UPDATE' then
          perform ${sql.id(n.write)}(array(select ${sql.id(e.parentColumn)} from new_rows union select ${sql.id(e.parentColumn)} from old_rows));
        elsif tg_op = 'DELETE' then
          perform ${sql.id(n.write)}(array(select distinct ${sql.id(e.parentColumn)} from old_rows));
        else -- TRUNCATE
          update ${sql.table(e.parent)} set ${sql.id(e.column)} = '[]'::json where ${sql.id(e.column)}::text <> '[]';
        end if;
        return null;
      end $$`.execute(db)
    // a trigger with transition tables has one event
    await sql`create trigger ${sql.id(n.trigger('insert'))} after insert on ${sql.table(e.child)}
      referencing new table as new_rows for each statement execute function ${sql.id(n.changed)}()`.execute(db)
    await sql`create trigger ${sql.id(n.trigger('update'))} after update on ${sql.table(e.child)}
      referencing old table as old_rows new table as new_rows for each statement execute function ${sql.id(n.changed)}()`.execute(
      db,
    )
    await sql`create trigger ${sql.id(n.trigger('delete'))} after delete on ${sql.table(e.child)}
      referencing old table as old_rows for each statement execute function ${sql.id(n.changed)}()`.execute(db)
    await sql`create trigger ${sql.id(n.trigger('truncate'))} after truncate on ${sql.table(e.child)}
      for each statement execute function ${sql.id(n.changed)}()`.execute(db)
    // the records already there
    await sql`select ${sql.id(n.write)}(array(select distinct ${sql.id(e.parentColumn)} from ${sql.table(e.child)}))`.execute(
      db,
    )
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const e of EMBEDDED) {
    const n = named(e)
    for (const event of ['insert', 'update', 'delete', 'truncate']) {
      await sql`drop trigger ${sql.id(n.trigger(event))} on ${sql.table(e.child)}`.execute(db)
    }
    await sql`drop function ${sql.id(n.changed)}()`.execute(db)
    await sql`drop function ${sql.id(n.write)}(integer[])`.execute(db)
    await sql`alter table ${sql.table(e.parent)} drop column ${sql.id(e.column)}`.execute(db)
  }
}
