import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { textMemo } from '../../src/textMemo.js'
import { Utf8Chunks } from '../../src/utf8Chunks.js'

// Text encoded as it is made: the bytes passed on are the text's UTF-8, in order, however the pieces fall across
// buffers (characters of 1 to 4 bytes, a piece larger than a buffer), whether the buffer is reused or handed over;
// and what is made of a text is made once while it recurs, and made again for each text between.

/** Every piece appended, then flushed: the bytes passed on, each copied when handed (reuse) or kept as given. */
function passed(pieces: string[], reuse: boolean): { bytes: Buffer; buffers: number } {
  const got: Buffer[] = []
  const chunks = new Utf8Chunks((bytes) => got.push(reuse ? Buffer.from(bytes) : bytes), reuse)
  for (const p of pieces) chunks.append(p)
  chunks.flush()
  assert.is(chunks.pending, 0)
  return { bytes: Buffer.concat(got), buffers: got.length }
}

test('the bytes passed on are the UTF-8 of every piece in order, across buffers, reused or not', () => {
  const pieces: string[] = []
  for (let i = 0; i < 60_000; i++) pieces.push(`${i},Turdus merula,Amsel ä,鳥,🐦 ${'x'.repeat(i % 7)}\n`)
  pieces.push('y'.repeat(3 << 20)) // longer than a buffer
  pieces.push('the end ✓')
  const text = pieces.join('')
  for (const reuse of [false, true]) {
    const { bytes, buffers } = passed(pieces, reuse)
    assert.ok(buffers > 2, `${buffers} buffers`)
    assert.ok(bytes.equals(Buffer.from(text, 'utf8')), `reuse ${reuse}: the same bytes`)
  }
})

test('nothing appended passes nothing on; a flush passes on only what came since the last', () => {
  const got: string[] = []
  const chunks = new Utf8Chunks((bytes) => got.push(bytes.toString('utf8')))
  chunks.flush()
  assert.equal(got, [])
  chunks.append('a')
  chunks.append('')
  chunks.flush()
  chunks.append('b')
  chunks.flush()
  chunks.flush()
  assert.equal(got, ['a', 'b'])
})

test('a text memo makes each text once while it recurs, again after others crowd it out, and never mixes two', () => {
  const made: string[] = []
  const quoted = textMemo((text) => {
    made.push(text)
    return `"${text}"`
  }, 2)
  assert.equal(['a', 'a', 'b', 'a', 'b', 'a'].map(quoted), ['"a"', '"a"', '"b"', '"a"', '"b"', '"a"'])
  assert.equal(made, ['a', 'b'])
  assert.is(quoted('c'), '"c"') // a third text: the two remembered are forgotten
  assert.is(quoted('a'), '"a"')
  assert.equal(made, ['a', 'b', 'c', 'a'])
})

test.run()
