import type { Database } from '../../server/db/database.js'
import { localTimestamp } from '../../server/db/time.js'
import { addToProject, makeProject } from './jobs.js'
import { makeLibrary, makeMetaData, makeMediaFile, makeTag, makeTagClass, makeTagSet } from './records.js'

// A small recording season whose activity reports are known in advance (test/server/resources/activityReport.test.ts,
// test/cli/report.test.ts):
//
//   north (sensor)  2026-05-01 22:00, 4 h   → 2 h on 05-01, 2 h on 05-02 (across midnight)
//   south (sensor)  2026-05-02 05:00, 1 h
//   siteC/…wav      2026-05-03 06:00, 0.5 h (no sensor: its folder is its site)
//   loose.wav       no start time, 1 min    (no day holds it)
//
// tag set `detections` (strength, hour of the local day, consensus of its reviews):
//   robin  north +600 s   0.95  22h 05-01  yes
//   robin  north +7800 s  0.85   0h 05-02  —
//   wren   north +8000 s  0.30   0h 05-02  no
//   robin  south +100 s   0.92   5h 05-02  no
//   wren   south +200 s   0.97   5h 05-02  yes (one yes, one skip)
//   wren   siteC +10 s    0.91   6h 05-03  yes (two yes, one no)
//   robin  loose +1 s     0.99   undated   —
// tag set `other` (same library): robin south +300 s 0.5. The project holds south and siteC.

type Db = Database['db']
type Owner = { id: number }

export interface Season {
  library: number
  project: number
  tagSet: number
  other: number
  files: { north: number; south: number; siteC: number; loose: number }
}

export async function makeSeason(db: Db, owner: Owner, reviewers: Owner[], prefix = 'season'): Promise<Season> {
  const library = await makeLibrary(db, owner, `${prefix}-library`)
  const sensor = async (name: string) =>
    (
      await db
        .insertInto('sensors')
        .values({ user_id: owner.id, name, sensor_array_id: null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  const file = async (o: { sensor?: number; alias: string; start: string | null; seconds: number }) => {
    const id = await makeMediaFile(db, owner, library, {
      alias: o.alias,
      sensor: o.sensor ?? null,
      realStartTime: o.start,
    })
    await makeMetaData(db, id, 'durationInSeconds', String(o.seconds))
    return id
  }
  const files = {
    north: await file({
      sensor: await sensor('north'),
      alias: 'north/20260501_220000.wav',
      start: '2026-05-01 22:00:00',
      seconds: 4 * 3600,
    }),
    south: await file({
      sensor: await sensor('south'),
      alias: 'south/20260502_050000.wav',
      start: '2026-05-02 05:00:00',
      seconds: 3600,
    }),
    siteC: await file({ alias: 'siteC/20260503_060000.wav', start: '2026-05-03 06:00:00', seconds: 1800 }),
    loose: await file({ alias: 'loose.wav', start: null, seconds: 60 }),
  }
  const robin = await makeTagClass(db, owner, library, 'robin')
  const wren = await makeTagClass(db, owner, library, 'wren')
  const tagSet = await makeTagSet(db, owner, library, `${prefix}-detections`)
  const other = await makeTagSet(db, owner, library, `${prefix}-other`)
  const tag = (set: number, mediaFile: number, tagClass: number, start: number, strength: number) =>
    makeTag(db, owner, { tagSet: set, mediaFile, tagClass }, { startTime: start, endTime: start + 1, strength })
  const review = (tagId: number, ...decisions: Array<'yes' | 'no' | 'skip'>) =>
    Promise.all(
      decisions.map((decision, i) =>
        db
          .insertInto('tag_reviews')
          .values({
            tag_id: tagId,
            user_id: reviewers[i].id,
            decision,
            tag_class_id: null,
            creation_date: localTimestamp(),
          })
          .execute(),
      ),
    )
  await review(await tag(tagSet, files.north, robin, 600, 0.95), 'yes')
  await tag(tagSet, files.north, robin, 7800, 0.85)
  await review(await tag(tagSet, files.north, wren, 8000, 0.3), 'no')
  await review(await tag(tagSet, files.south, robin, 100, 0.92), 'no')
  await review(await tag(tagSet, files.south, wren, 200, 0.97), 'yes', 'skip')
  await review(await tag(tagSet, files.siteC, wren, 10, 0.91), 'yes', 'yes', 'no')
  await tag(tagSet, files.loose, robin, 1, 0.99)
  await tag(other, files.south, robin, 300, 0.5)
  const project = await makeProject(db, owner, `${prefix}-project`)
  await addToProject(db, project, [files.south, files.siteC])
  return { library, project, tagSet, other, files }
}
