import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { reportTable } from '../../src/reportCommand.js'

// `mas report coverage`'s table: hours recorded per site and day, to the hundredth, a day of a few seconds told
// from a day without recordings.

test('coverage: hours to the hundredth, a few seconds recorded shown as <0.01, a day without any as 0', () => {
  const text = reportTable({
    report: 'coverage',
    minimumStrength: null,
    reviewed: null,
    tz: null,
    totalHours: 2.5 + 12 / 3600,
    unplacedFiles: 0,
    rows: [
      { site: 'siteA', date: '2025-06-01', hours: 2.5 },
      { site: 'siteB', date: '2025-06-01', hours: 12 / 3600 },
      { site: 'siteA', date: '2025-06-02', hours: 1 / 3 },
    ],
  })
  assert.equal(
    text.split('\n').map((l) => l.split(/\s+/)),
    [
      ['DATE', 'SITEA', 'SITEB'],
      ['2025-06-01', '2.5', '<0.01'],
      ['2025-06-02', '0.33', '0'],
    ],
  )
})

test.run()
