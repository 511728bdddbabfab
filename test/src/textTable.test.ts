import { test } from 'uvu'
import * as assert from 'uvu/assert'
import stringWidth from 'string-width'
import { textTable } from '../../src/textTable.js'

// A list command's table: whole cells on a pipe, in columns scripts split on two or more spaces; on a terminal every
// line within its width, the widest columns narrowed first, cut cells ending in an ellipsis; wide characters
// (Japanese site names, emoji in notes) counted as the two cells a terminal gives them.

const HEADER = ['ID', 'NAME', 'MEDIA', 'NOTE']
const ROWS = [
  ['1', 'Frogs of the north', '', '日本語テキスト'],
  ['22', 'x', '3', 'a'],
]

/** the display column at which each cell of a line starts, found from the cells themselves */
function starts(line: string, cells: string[]): number[] {
  let at = 0
  return cells.map((c) => {
    const i = line.indexOf(c, at)
    at = i + c.length
    return stringWidth(line.slice(0, i))
  })
}

test('on a pipe: the layout list commands have always printed, every cell whole', () => {
  assert.equal(textTable(HEADER, ROWS), [
    'ID   NAME                 MEDIA   NOTE',
    '1    Frogs of the north           日本語テキスト',
    '22   x                    3       a',
  ])
  assert.equal(textTable(null, ROWS).length, 2, 'without the header row')
  assert.equal(textTable(HEADER, []), ['ID   NAME   MEDIA   NOTE'])
  assert.equal(textTable(null, []), [])
})

test('wide characters take two cells: the columns after them stay aligned', () => {
  const rows = [
    ['日本語', 'site A'],
    ['abc', 'site B'],
  ]
  const lines = textTable(['NAME', 'SITE'], rows)
  assert.equal(starts(lines[1], rows[0]), starts(lines[2], rows[1]))
  assert.is(starts(lines[1], rows[0])[1], 9, '6 cells of 日本語 and 3 of the gap')
})

test('on a terminal: every line fits its width, the widest columns narrowed first, cut cells end in an ellipsis', () => {
  for (const width of [60, 40, 30, 24, 20]) {
    const lines = textTable(HEADER, ROWS, width)
    for (const l of lines) assert.ok(stringWidth(l) <= width, `${JSON.stringify(l)} within ${width}`)
    assert.ok(lines[0].startsWith('ID   '), `the narrow id column is left whole at ${width}: ${lines[0]}`)
  }
  const at30 = textTable(HEADER, ROWS, 30)
  assert.match(at30[1], /^1 {4}Frogs…/, at30[1])
  assert.ok(at30[1].includes('日本'), 'a wide cell is cut between characters')
  assert.equal(textTable(HEADER, ROWS, 80), textTable(HEADER, ROWS), 'a table that fits is printed whole')
})

test('a terminal too narrow for every column keeps each at two cells rather than dropping any', () => {
  const lines = textTable(HEADER, ROWS, 5)
  assert.is(lines.length, 3)
  for (const l of lines) assert.is(l.split(/ {3}/).length, 4, l)
})

test.run()
