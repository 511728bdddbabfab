import { readFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { JOB_TYPE_PARAMS } from '../../../server/analysis/catalog.js'

// The README's job types table states every parameter of every built-in type
// with its default or "required", as the server applies them.

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8')

test('the README job types table lists every parameter with its default', () => {
  const rows = readme
    .split('\n')
    .filter((l) => /^\| .* \| `\w+` \|/.test(l))
    .map((l) => l.split('|').map((c) => c.trim()))
  const stated = new Map<string, string>()
  let type = ''
  for (const r of rows) {
    if (r[1]) type = r[1].replace(/ \(\d+\)$/, '')
    stated.set(`${type}.${r[2].replace(/`/g, '')}`, r[4])
  }
  for (const t of JOB_TYPE_PARAMS) {
    for (const [name, p] of Object.entries(t.params)) {
      const want = p.required ? 'required' : p.default !== undefined ? String(p.default) : '—'
      assert.is(stated.get(`${t.name}.${name}`), want, `${t.name}.${name}`)
    }
  }
})

test.run()
