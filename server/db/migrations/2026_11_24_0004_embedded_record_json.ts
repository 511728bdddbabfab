import { sql, type Kysely } from 'kysely'

// The JSON of each media file metadata record and each job parameter, kept in its row (record_json) by a
// trigger on every INSERT and UPDATE, so that a list embedding them (mediaFile/, jobs/) joins stored texts
// instead of writing every value of every embedded record as JSON again at each read, which was more than
// half of PostgreSQL's time on a page of media files (docs/decisions.md §11, BENCHMARKS.md). The column is
// of type json, checked once when written: an array of json values is written out as its texts joined, where
// a text cast to json would be parsed again at every read. The records are
// those of the field declarations of mediaFileMetaData (server/resources/mediaMetadata.ts) and
// jobParameters (server/resources/jobParameters.ts), written as row_to_json writes them: a change to those
// fields is a new migration replacing the function (test/server/listRendering.test.ts compares each list's
// records with their details, which the server renders from the declarations).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function media_file_metadata_json() returns trigger language plpgsql as $$
    begin
      new.record_json := (select row_to_json(k) from (select new.id as "id", new.media_file_id as "mediaFile",
        new.name as "name", new.value as "value", new.user_editable as "userEditable") as k);
      return new;
    end $$`.execute(db)
  await sql`create function job_parameters_json() returns trigger language plpgsql as $$
    begin
      new.record_json := (select row_to_json(k) from (select new.id as "id", new.job_id as "job",
        new.name as "name", new.value as "value") as k);
      return new;
    end $$`.execute(db)
  for (const [table, fn] of [['media_file_metadata', 'media_file_metadata_json'], ['job_parameters', 'job_parameters_json']]) {
    await sql`alter table ${sql.table(table)} add column record_json json`.execute(db)
    await sql`create trigger ${sql.id(`${table}_json`)} before insert or update on ${sql.table(table)}
      for each row execute function ${sql.id(fn)}()`.execute(db)
    // the rows already there: the trigger writes their JSON
    await sql`update ${sql.table(table)} set name = name`.execute(db)
    await sql`alter table ${sql.table(table)} alter column record_json set not null`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, fn] of [['media_file_metadata', 'media_file_metadata_json'], ['job_parameters', 'job_parameters_json']]) {
    await sql`drop trigger ${sql.id(`${table}_json`)} on ${sql.table(table)}`.execute(db)
    await sql`alter table ${sql.table(table)} drop column record_json`.execute(db)
    await sql`drop function ${sql.id(fn)}()`.execute(db)
  }
}
