import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sql } from 'kysely'
import pg from 'pg'
import { Coalescer } from '../../../../server/db/coalesce.js'
import { api, suiteApp, type TestUser } from '../../../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeMetaData, makeTagClass } from '../../../helpers/records.js'
import { makeRecords, tagRefs } from '../../../helpers/world.js'

// Single creates that arrive together, of one caller, shape and scope, are made as one statement
// (server/resources/fast/createBatch.ts), and so are one caller's details (fast/detail.ts; docs/decisions.md §13):
// each request must still get the answer of its own record, or its own error, exactly as alone, and
// nothing of one caller may be made or read with another's.

const t = suiteApp(test)
let owner: TestUser, writer: TestUser, reader: TestUser, stranger: TestUser
let lib: number, set: number, file: number, file2: number, cls: number, foreignClass: number

test.before(async () => {
  ;({ owner, library: lib, tagSet: set, mediaFile: file, tagClass: cls } = await makeRecords(t, 'batchOwner'))
  writer = await t.user('batchWriter')
  reader = await t.user('batchReader')
  stranger = await t.user('batchStranger')
  file2 = await makeMediaFile(t.db, owner, lib)
  foreignClass = await makeTagClass(t.db, stranger, await makeLibrary(t.db, stranger))
  await grant(t.db, owner, { user: writer.id }, { library: lib }, ['read', 'write'])
  await grant(t.db, owner, { user: reader.id }, { library: lib }, ['read'])
})

const tagBody = (startTime: number, o: Record<string, unknown> = {}) => ({
  tagSet: set,
  mediaFile: file,
  tagClass: cls,
  startTime,
  endTime: startTime + 1,
  minFrequency: 100,
  maxFrequency: 2000,
  ...o,
})

const post = (as: TestUser, body: unknown) => t.call('POST', api('tag/'), { as, body })

/** the tags stored with these start times, by start time */
async function stored(starts: number[]) {
  const rows = await t.db
    .selectFrom('tags')
    .selectAll()
    .where('tag_set_id', '=', set)
    .where('start_time', 'in', starts)
    .execute()
  return new Map(rows.map((r) => [r.start_time, r]))
}

test("a single create is one statement, its media file's bounds checked in it; one out of bounds is refused all the same", async () => {
  const timed = await makeMediaFile(t.db, owner, lib, { file: 'timed.wav' })
  await makeMetaData(t.db, timed, 'durationInSeconds', '30.0')
  await makeMetaData(t.db, timed, 'sampleRate', '16000')
  const created = t.app.services.records.answered.create
  assert.is((await post(owner, tagBody(1, { mediaFile: timed }))).statusCode, 201)
  const [sent, fast] = [t.database.statements.sent, created.fast]
  const res = await post(owner, tagBody(2, { mediaFile: timed }))
  assert.is(res.statusCode, 201, res.body)
  assert.is(t.database.statements.sent - sent, 1, 'statements sent for one create')
  assert.is(created.fast - fast, 1)
  const late = await post(owner, tagBody(29.5, { mediaFile: timed }))
  assert.equal(
    [late.statusCode, late.data],
    [400, { endTime: [`endTime 30.5 is past the end of media file ${timed} (timed.wav), at 30.0 s.`] }],
  )
  const high = await post(owner, tagBody(3, { mediaFile: timed, maxFrequency: 8001 }))
  assert.equal(
    [high.statusCode, high.data],
    [
      400,
      {
        maxFrequency: [
          `maxFrequency 8001.0 is above half the sample rate of media file ${timed} (timed.wav), 8000.0 Hz.`,
        ],
      },
    ],
  )
})

test('creates of one caller that arrive together are made in batches, each answered with its own record', async () => {
  const starts = Array.from({ length: 60 }, (_, i) => 1000 + i)
  const answers = await Promise.all(starts.map((s) => post(owner, tagBody(s, { mediaFile: s % 2 ? file : file2 }))))
  const rows = await stored(starts)
  assert.is(rows.size, starts.length)
  for (const [i, res] of answers.entries()) {
    assert.is(res.statusCode, 201, res.body)
    assert.is(res.data.startTime, starts[i])
    assert.is(res.data.mediaFile, starts[i] % 2 ? file : file2)
    assert.is(res.data.user, owner.id)
    // the answer is the record stored with its id, as a detail shows it
    assert.is(rows.get(starts[i])!.id, res.data.id)
    assert.equal((await t.call('GET', api(`tag/${res.data.id}/`), { as: owner })).data, res.data)
  }
  // the tag set's count rows: one per statement, so a row counting more than one tag is a batch
  const deltas = await t.db.selectFrom('tag_set_tag_counts').select('delta').where('tag_set_id', '=', set).execute()
  assert.ok(
    deltas.some((d) => Number(d.delta) > 1),
    `statements' deltas: ${deltas.map((d) => d.delta).join(',')}`,
  )
  assert.is((await t.call('GET', api(`tagSet/${set}/tags/`), { as: owner })).data.count, await countTags())
})

async function countTags(): Promise<number> {
  const r = await t.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tag_set_id', '=', set)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

test('a create whose check fails among others is refused alone, with the error it gets alone', async () => {
  const alone = await post(owner, tagBody(1999, { tagClass: foreignClass }))
  assert.is(alone.statusCode, 400)
  const starts = Array.from({ length: 30 }, (_, i) => 2000 + i)
  const bad = new Set([2007, 2021])
  const answers = await Promise.all(
    starts.map((s) => post(owner, tagBody(s, bad.has(s) ? { tagClass: foreignClass } : {}))),
  )
  const rows = await stored(starts)
  for (const [i, res] of answers.entries()) {
    if (bad.has(starts[i])) {
      assert.is(res.statusCode, 400)
      assert.equal(res.data, alone.data)
      assert.not.ok(rows.has(starts[i]))
    } else {
      assert.is(res.statusCode, 201, res.body)
      assert.is(rows.get(starts[i])!.id, res.data.id)
    }
  }
})

test("creates of several media files made together are held each to its own file's bounds", async () => {
  const short = await makeMediaFile(t.db, owner, lib, { file: 'short.wav' })
  await makeMetaData(t.db, short, 'durationInSeconds', '30.0')
  const long = await makeMediaFile(t.db, owner, lib, { file: 'long.wav' })
  await makeMetaData(t.db, long, 'durationInSeconds', '100.0')
  const pastEnd = await post(owner, tagBody(39, { mediaFile: short }))
  assert.is(pastEnd.statusCode, 400)
  // tags of the short file within its 30 s and of the long one up to 90 s are made, in batches
  const within = (i: number) => ({ mediaFile: i % 2 ? short : long, start: i % 2 ? 20 + i / 10 : 80 + i / 10 })
  const before = await t.db.selectFrom('tag_set_tag_counts').select('id').where('tag_set_id', '=', set).execute()
  const made = await Promise.all(
    Array.from({ length: 40 }, (_, i) => post(owner, tagBody(within(i).start, { mediaFile: within(i).mediaFile }))),
  )
  for (const res of made) assert.is(res.statusCode, 201, res.body)
  const deltas = await t.db
    .selectFrom('tag_set_tag_counts')
    .select('delta')
    .where('tag_set_id', '=', set)
    .where(
      'id',
      'not in',
      before.map((r) => r.id),
    )
    .execute()
  assert.ok(
    deltas.some((d) => Number(d.delta) > 1),
    `made in batches: ${deltas.map((d) => d.delta).join(',')}`,
  )
  // a tag of the short file ending at 40 s would fit the long file: checked against its own, it is refused among
  // the others, with the error it gets alone
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      i === 17
        ? post(owner, tagBody(39, { mediaFile: short }))
        : post(owner, tagBody(within(i).start + 0.05, { mediaFile: within(i).mediaFile })),
    ),
  )
  for (const [i, res] of answers.entries()) {
    if (i === 17) assert.equal([res.statusCode, res.data], [400, pastEnd.data])
    else assert.is(res.statusCode, 201, res.body)
  }
})

test('creates of different callers are made for each caller: its own rights, its own records', async () => {
  const calls = Array.from({ length: 45 }, (_, i) => ({ as: [owner, writer, reader][i % 3], start: 3000 + i }))
  const answers = await Promise.all(calls.map((c) => post(c.as, tagBody(c.start))))
  const rows = await stored(calls.map((c) => c.start))
  for (const [i, res] of answers.entries()) {
    const { as, start } = calls[i]
    if (as === reader) {
      // may read the tag set but not write it
      assert.is(res.statusCode, 403)
      assert.not.ok(rows.has(start))
    } else {
      assert.is(res.statusCode, 201, res.body)
      assert.is(res.data.user, as.id)
      assert.is(rows.get(start)!.user_id, as.id)
      assert.is(rows.get(start)!.id, res.data.id)
    }
  }
})

test('a batch the database refuses for one of its rows is made again create by create', async () => {
  const doomed = await makeMediaFile(t.db, owner, lib)
  const starts = Array.from({ length: 24 }, (_, i) => 4000 + i)
  // the first creates run alone and end; the others wait for them and run as one batch
  const refersToDoomed = (s: number) => s >= 4008 && s % 2 === 0
  let answers: Promise<Awaited<ReturnType<typeof post>>[]> | undefined
  let waiting = ''
  await t.db.transaction().execute(async (trx) => {
    // deleted, not yet committed: the batch's checks still read the media file, and its trigger waits for
    // this transaction to lock it, then finds it gone and fails the whole statement
    await trx.deleteFrom('media_files').where('id', '=', doomed).execute()
    answers = Promise.all(starts.map((s) => post(owner, tagBody(s, refersToDoomed(s) ? { mediaFile: doomed } : {}))))
    for (let i = 0; i < 200 && !waiting; i++) {
      await new Promise((r) => setTimeout(r, 25))
      // a batch's statement begins with its rows (createBatch.ts); the activity view keeps a statement's beginning
      const r = await sql<{ query: string }>`select query from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like 'with "input" as (select nextval(%'`.execute(
        t.db,
      )
      waiting = r.rows[0]?.query ?? ''
    }
  })
  assert.ok(waiting, 'a batch statement waited for the deletion')
  const answered = await answers!
  const rows = await stored(starts)
  for (const [i, res] of answered.entries()) {
    if (refersToDoomed(starts[i])) {
      assert.is(res.statusCode, 400, res.body)
      assert.equal(res.data, { mediaFile: [`Invalid pk "${doomed}" - object does not exist.`] })
      assert.not.ok(rows.has(starts[i]))
    } else {
      assert.is(res.statusCode, 201, res.body)
      assert.is(rows.get(starts[i])!.id, res.data.id)
    }
  }
})

/** The answers of `ask` made while `table` is locked, and the most statements seen waiting for the lock at once:
 * those that reached the database. The lock is held, and the waiting statements counted, on a connection of its
 * own: the app's pool is left to the requests. */
async function whileLocked<R>(table: string, ask: () => Promise<R>): Promise<{ answers: R; reached: number }> {
  let answers: Promise<R> | undefined
  let reached = 0
  const side = new pg.Client({ connectionString: t.database.url })
  await side.connect()
  try {
    await side.query('begin')
    await side.query(`lock table ${table} in access exclusive mode`)
    answers = ask()
    // awaited once the lock is let go: a refusal meanwhile is not left unhandled
    answers.catch(() => {})
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 25))
      // the activity view is read once per transaction unless its snapshot is cleared
      await side.query('select pg_stat_clear_snapshot()')
      const r = await side.query(`select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`)
      reached = Math.max(reached, Number(r.rows[0].n))
    }
    await side.query('commit')
  } finally {
    await side.end()
  }
  return { answers: await answers!, reached }
}

test('details of one caller asked together are read in batches, each answered as alone', async () => {
  const mine = (await Promise.all([5000, 5001, 5002].map((s) => post(owner, tagBody(s))))).map(
    (r) => r.data.id as number,
  )
  const strangers = await t.call('POST', api('tag/'), {
    as: stranger,
    body: { ...tagBody(5003), ...tagRefs(await makeRecords(t, stranger)), tagClass: foreignClass },
  })
  assert.is(strangers.statusCode, 201, strangers.body)
  const ids = [...mine, strangers.data.id as number, 999999]
  const asked = Array.from({ length: 40 }, (_, i) => ids[i % ids.length])
  const alone: Array<{ status: number; body: string }> = []
  for (const id of asked) {
    const res = await t.call('GET', api(`tag/${id}/`), { as: owner })
    alone.push({ status: res.statusCode, body: res.body })
  }
  assert.equal(
    alone.slice(0, 5).map((a) => a.status),
    [200, 200, 200, 404, 404],
  )
  // with tags locked, the statements that reach the database wait there: only the caller's first two do, the
  // others waiting in the server to be read together
  const { answers: together, reached } = await whileLocked('tags', () =>
    Promise.all(asked.map((id) => t.call('GET', api(`tag/${id}/`), { as: owner }))),
  )
  assert.ok(reached >= 1 && reached <= 2, `${reached} of ${asked.length} details reached the database at once`)
  together.forEach((res, i) => {
    assert.is(res.statusCode, alone[i].status)
    assert.is(res.body, alone[i].body)
  })
  // another caller asking at the same moment reads only what it may
  const mixed = await Promise.all(
    asked.map((id, i) => t.call('GET', api(`tag/${id}/`), { as: i % 2 ? stranger : owner })),
  )
  mixed.forEach((res, i) => {
    const id = asked[i]
    if (i % 2 === 0) assert.is(res.body, alone[i].body)
    else assert.is(res.statusCode, id === strangers.data.id ? 200 : 404)
  })
})

for (const [name, path, table] of [
  ['a top-level list', () => api('mediaFile/?page_size=2'), 'media_files'],
  ['a sub-list', () => api(`tagSet/${set}/tags/?page_size=2`), 'tags'],
] as const) {
  test(`one caller asking the same page of ${name} together has it read once for those that waited, each answered as alone`, async () => {
    const page = path()
    const before = t.database.statements.sent
    const alone = await t.call('GET', page, { as: owner })
    const strangers = await t.call('GET', page, { as: stranger })
    const perRead = t.database.statements.sent - before
    assert.is(alone.statusCode, 200)
    assert.ok((alone.data.count as number) >= 2 && alone.body !== strangers.body)
    const [sent, lists] = [t.database.statements.sent, t.app.services.records.answered.list.fast]
    const { answers: together, reached } = await whileLocked(table, () =>
      Promise.all(Array.from({ length: 30 }, (_, i) => t.call('GET', page, { as: i % 3 === 2 ? stranger : owner }))),
    )
    // at most the first read of each caller reached the database; the others waited in the server for it
    assert.ok(reached >= 1 && reached <= 2, `${reached} reads reached the database at once`)
    together.forEach((res, i) => {
      assert.is(res.body, i % 3 === 2 ? strangers.body : alone.body)
      assert.is(res.statusCode, i % 3 === 2 ? strangers.statusCode : 200)
    })
    assert.is(t.app.services.records.answered.list.fast - lists, 30)
    // one more read for each caller's list asked while the first ran, whatever their number
    const statements = t.database.statements.sent - sent
    assert.ok(statements <= 2 * perRead, `${statements} statements for 30 lists, ${perRead} for one of each caller`)
    // and a list asked after a write is read after it
    if (table === 'media_files') await makeMediaFile(t.db, owner, lib)
    else assert.is((await post(owner, tagBody(6000))).statusCode, 201)
    const after = await Promise.all([1, 2, 3].map(() => t.call('GET', page, { as: owner })))
    for (const res of after) assert.is(res.data.count, (alone.data.count as number) + 1)
  })
}

test('the coalescer runs a request alone when its key is idle, and those that wait as one batch', async () => {
  const c = new Coalescer<number, string>(1, 3)
  const batches: number[][] = []
  let release!: () => void
  const gate = new Promise<void>((r) => {
    release = r
  })
  const run = (ms: number[]) => {
    batches.push(ms)
    const done = batches.length === 1 ? gate : Promise.resolve()
    return ms.map((m) =>
      m === 13 ? done.then(() => Promise.reject(new Error('thirteen'))) : done.then(() => `answer ${m}`),
    )
  }
  const answers = [10, 11, 12, 13, 14, 15].map((m) => c.submit('k', m, run).catch((e: Error) => e.message))
  // another key is not held up by the first
  assert.is(await c.submit('other', 99, run), 'answer 99')
  release()
  assert.equal(await Promise.all(answers), [
    'answer 10',
    'answer 11',
    'answer 12',
    'thirteen',
    'answer 14',
    'answer 15',
  ])
  // 10 alone; 11-13 filled a batch, which ran at once; 14-15 waited for a batch to end
  assert.equal(batches, [[10], [11, 12, 13], [99], [14, 15]])
})

test.run()
