import { rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join, resolve } from 'node:path'
import madge from 'madge'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { tempDir } from '../helpers/tempDir.js'

// No import cycle among the command line's modules (src/ and commands/), type-only imports counted: a reader
// follows those too (docs/architecture.md). Read from the TypeScript sources by madge. The server's own modules,
// which the command line reaches through `mas server start`, still have two rings of resources: they may only shrink.

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../..')
const OURS = /^(src|commands)\//

test('src/ and commands/ have no import cycle', async () => {
  const graph = await madge([join(ROOT, 'src'), join(ROOT, 'commands')], {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  })
  const files = Object.keys(graph.obj())
  assert.ok(files.filter((f) => OURS.test(f)).length >= 100, `only ${files.length} files read`)
  assert.ok(graph.depends('src/api.ts').length > 10, 'no imports of src/api.ts found: the reader read nothing')
  const cycles = graph.circular().filter((cycle) => cycle.some((f) => OURS.test(f)))
  assert.equal(
    cycles.map((c) => c.join(' → ')),
    [],
  )
})

/**
 * The server's modules that are in an import cycle today (docs/architecture.md): resources whose declarations name
 * each other (a media file its library and metadata, a tag its tag set and back). No other file may join them; when
 * a change takes a file out, it comes off this list too, so the list only shrinks.
 */
const TANGLED_TODAY = [
  'server/resources/embeddedLists.ts',
  'server/resources/jobParameters.ts',
  'server/resources/jobs.ts',
  'server/resources/library.ts',
  'server/resources/mediaFile.ts',
  'server/resources/mediaMetadata.ts',
  'server/resources/project.ts',
  'server/resources/tag.ts',
  'server/resources/tagExample.ts',
  'server/resources/tagSet.ts',
]

/** The files of `graph` (file → the files it imports) that lie on some cycle: its strongly connected components of two or more (Tarjan's). */
function filesOnCycles(graph: Record<string, string[]>): string[] {
  let next = 0
  const order = new Map<string, number>(),
    reach = new Map<string, number>(),
    open = new Set<string>(),
    stack: string[] = [],
    found: string[] = []
  const visit = (file: string) => {
    order.set(file, next)
    reach.set(file, next++)
    stack.push(file)
    open.add(file)
    for (const used of graph[file] ?? []) {
      if (!order.has(used)) {
        visit(used)
        reach.set(file, Math.min(reach.get(file)!, reach.get(used)!))
      } else if (open.has(used)) reach.set(file, Math.min(reach.get(file)!, order.get(used)!))
    }
    if (reach.get(file) !== order.get(file)) return
    const component: string[] = []
    for (let f = stack.pop()!; ; f = stack.pop()!) {
      open.delete(f)
      component.push(f)
      if (f === file) break
    }
    if (component.length > 1) found.push(...component)
  }
  for (const file of Object.keys(graph)) if (!order.has(file)) visit(file)
  return found.sort()
}

test("the server's modules: no file joins the import tangle left, and a file taken out of it comes off its list", async () => {
  const graph = await madge(join(ROOT, 'server'), {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  })
  const files = Object.keys(graph.obj())
  assert.ok(files.length >= 200, `only ${files.length} files read`)
  const tangled = filesOnCycles(graph.obj())
  assert.equal(
    tangled.filter((f) => !TANGLED_TODAY.includes(f)),
    [],
    'files that joined an import cycle',
  )
  assert.equal(
    TANGLED_TODAY.filter((f) => !tangled.includes(f)),
    [],
    'files no longer in a cycle: take them off TANGLED_TODAY',
  )
})

test('files on cycles: every file of a ring, none of a chain', () => {
  assert.equal(filesOnCycles({ a: ['b'], b: ['c'], c: ['a'], d: ['a'], e: [] }), ['a', 'b', 'c'])
  assert.equal(filesOnCycles({ a: ['b'], b: ['c'], c: [] }), [])
  assert.equal(filesOnCycles({ a: ['b'], b: ['a'], c: ['d'], d: ['c', 'a'] }), ['a', 'b', 'c', 'd'])
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
