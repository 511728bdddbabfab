import { sql, type Kysely } from 'kysely'

// The check that a new tag ends within its media file and below half its sample rate (docs/decisions.md §18) as
// an SQL condition, so that a single `POST tag/` makes it in its one statement with the reference and access
// checks and the INSERT (server/resources/fast/create.ts) instead of two queries before it. It is the twin of
// extentsOf, latestEnd and outOfBounds (server/media/extent.ts), which still explain a refusal; the two are held
// together by test/server/tagBounds.test.ts.
//
// It may refuse where they accept, never the other way: a refused create is made again the ordinary way, which
// checks with them. So a fact whose text is not a plain decimal number (which Number() might read and a cast
// to double precision might not, or might overflow on) makes it refuse, and the ordinary way decides.

export async function up(db: Kysely<any>): Promise<void> {
  // 2678400 s: 31 days, the longest a media file of unknown duration is taken to last (UNKNOWN_DURATION_LIMIT)
  await sql`create function tag_region_fits(file_id integer, end_time double precision, max_frequency double precision)
    returns boolean language sql stable parallel safe as $$
      with facts as (
        select d.id, d.name,
          d.name <> 'warning' and not (length(d.value) <= 40
            and d.value ~ '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]{1,2})?\\s*$') as unread,
          d.value
        from media_file_metadata d
        where d.media_file_id = file_id and not d.user_editable and d.name in ('durationInSeconds', 'sampleRate', 'warning')
      ), numbers as (
        select f.id, f.name, case when not f.unread then f.value::double precision end as n
        from facts f where f.name <> 'warning'
      ), extent as (
        select
          (select p.n from numbers p where p.name = 'durationInSeconds' and p.n > 0 order by p.id limit 1) as duration,
          (select p.n from numbers p where p.name = 'sampleRate' and p.n > 0 order by p.id limit 1) as sample_rate,
          exists (select 1 from facts f where f.name = 'warning')
            or coalesce((select m.file ~* '\\.mp3$' from media_files m where m.id = file_id), false) as estimate,
          exists (select 1 from facts f where f.unread) as unread
      )
      select coalesce(not e.unread
        and end_time <= case when e.duration is null then 2678400::double precision
          else e.duration + case when e.estimate then greatest(1::double precision, e.duration * 0.01::double precision)
            else 0.001::double precision end end
        and (e.sample_rate is null or max_frequency <= e.sample_rate / 2), false)
      from extent e
    $$`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function tag_region_fits(integer, double precision, double precision)`.execute(db)
}
