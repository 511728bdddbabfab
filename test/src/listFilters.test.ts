import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { filterCheck, UncheckedFilter } from '../../src/listFilters.js'

// The filters the CLI sends, checked on the records a server answers (in django-filter's meaning), so that a
// server that ignored them (the original ignores every one) never gets its whole list printed or acted on.

const media = [
  { id: 1, alias: 'siteA/a.wav', realStartTime: '2026-05-01T04:00:00', library: 1, sensor: 3, active: true },
  { id: 2, alias: 'siteA/b.wav', realStartTime: '2026-05-01T08:00:00', library: 2, sensor: null, active: false },
  { id: 3, alias: 'siteB/c.wav', realStartTime: null, library: 1, sensor: 3, active: true },
]
const kept = (query: Record<string, string | number | boolean | undefined>) =>
  filterCheck(query)
    .keep(media)
    .map((m) => m.id)

test('startswith, gte and lte (timestamps, a date alone meaning its midnight), equality of ids, booleans and null', () => {
  assert.equal(kept({ alias__startswith: 'siteA/' }), [1, 2])
  assert.equal(kept({ realStartTime__gte: '2026-05-01T05:00:00' }), [2])
  assert.equal(kept({ realStartTime__lte: '2026-05-01 04:00:00' }), [1])
  assert.equal(kept({ realStartTime__gte: '2026-05-01' }), [1, 2])
  assert.equal(kept({ library: 1, sensor: '3' }), [1, 3])
  assert.equal(kept({ active: 'false' }), [2])
  assert.equal(kept({ alias: 'siteB/c.wav' }), [3])
})

test('paging and ordering are not filters; parameters left undefined are not sent', () => {
  assert.equal(kept({ page_size: 1000, ordering: '-id', format: 'json', library: undefined }), [1, 2, 3])
  assert.is(filterCheck({ page_size: 1 }).filters, false)
})

test('a filter on a field the records do not carry is refused, naming the flag that asked for it', () => {
  assert.throws(
    () => filterCheck({ project: 4 }, { project: '--project' }).keep(media),
    (e: unknown) => e instanceof UncheckedFilter && /^--project: the server did not filter by project/.test(e.message),
  )
  assert.throws(() => filterCheck({ tagSet__in: '1' }).keep(media), /^\?tagSet__in=: /)
  assert.equal(filterCheck({ project: 4 }).keep([]), [], 'nothing to check in an empty answer')
})

test.run()
