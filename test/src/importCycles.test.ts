import { rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join, resolve } from 'node:path'
import madge from 'madge'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { tempDir } from '../helpers/tempDir.js'

// No import cycle among the server's, the command line's and the commands' modules (server/, src/, commands/),
// type-only imports counted: a reader follows those too (docs/architecture.md). Read from the TypeScript sources by
// madge.

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../..')

test('server/, src/ and commands/ have no import cycle', async () => {
  const graph = await madge([join(ROOT, 'server'), join(ROOT, 'src'), join(ROOT, 'commands')], {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  })
  const files = Object.keys(graph.obj())
  for (const folder of ['server', 'src', 'commands'])
    assert.ok(files.filter((f) => f.startsWith(`${folder}/`)).length >= 40, `only ${files.length} files read`)
  assert.ok(graph.depends('src/api.ts').length > 10, 'no imports of src/api.ts found: the reader read nothing')
  assert.ok(
    graph.depends('server/resources/core/define.ts').length > 10,
    'no imports of server/resources/core/define.ts found: the reader read nothing',
  )
  assert.equal(
    graph.circular().map((c) => c.join(' → ')),
    [],
  )
})

test('the check finds a cycle where there is one, through a type-only import', async () => {
  const dir = tempDir('mas-cycle-')
  try {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js'\nexport type A = B[]\n")
    writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.js'\nexport interface B { a: A }\n")
    const graph = await madge(dir, {
      fileExtensions: ['ts'],
      tsConfig: join(ROOT, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false } },
    })
    assert.equal(graph.circular(), [['a.ts', 'b.ts']])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
