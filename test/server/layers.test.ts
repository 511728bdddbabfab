import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'

// The domain layer (docs/architecture.md, the layers of the server): server/analysis/, server/media/ and
// the worker in server/jobs/ never import server/resources/ nor server/http/; resources and jobs import the
// domain, and the HTTP layer maps the domain's errors. Within the HTTP side, server/http/ imports nothing of
// server/resources/ (nor server/services.ts, which names them), and the resources' plain path (core/) never imports
// the accelerators (fast/): they are plugged in by server/services.ts and resources/resource.ts alone.
// Read from the sources themselves, every import and re-export specifier, static or dynamic.

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../..')
const SERVER = join(ROOT, 'server')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') ? [path] : []
  })
}

/** The repository-relative paths a source file imports (relative specifiers only; packages are not ours). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1])
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(ROOT, resolve(dirname(file), s)))
}

const into = (layer: string) => (file: string) => importsOf(file).filter((p) => p.startsWith(`server/${layer}/`))
const intoResources = into('resources')
const intoHttp = into('http')
const domain = () => ['analysis', 'media', 'jobs'].flatMap((d) => sources(join(SERVER, d)))

test('the reader finds imports of resources where they are allowed (the routes plugin)', () => {
  const found = intoResources(join(SERVER, 'plugins', 'routes.ts'))
  assert.ok(found.includes('server/resources/index.js'), `found: ${found.join(', ')}`)
  assert.ok(found.includes('server/resources/mediaBytes.js'), `found: ${found.join(', ')}`)
})

test('the reader finds imports of the HTTP layer where they are allowed (the errors plugin)', () => {
  const found = intoHttp(join(SERVER, 'plugins', 'errors.ts'))
  assert.ok(found.includes('server/http/errors.js'), `found: ${found.join(', ')}`)
})

for (const [layer, imports] of [
  ['server/resources', intoResources],
  ['server/http', intoHttp],
] as const) {
  test(`server/analysis, server/media and server/jobs never import ${layer}`, () => {
    const files = domain()
    assert.ok(files.length >= 20, `only ${files.length} source files found under ${SERVER}`)
    assert.ok(
      files.some((f) => importsOf(f).length > 0),
      'no imports read at all',
    )
    const wrong = files.flatMap((f) => imports(f).map((p) => `${relative(ROOT, f)} imports ${p}`))
    assert.equal(wrong, [])
  })
}

test('server/http imports nothing of the resources, nor the services that name them', () => {
  const files = sources(join(SERVER, 'http'))
  assert.ok(files.length >= 10, `only ${files.length} source files found under server/http`)
  const wrong = files.flatMap((f) =>
    importsOf(f)
      .filter((p) => p.startsWith('server/resources/') || p === 'server/services.js')
      .map((p) => `${relative(ROOT, f)} imports ${p}`),
  )
  assert.equal(wrong, [])
})

test('the accelerators (resources/fast/) are imported by server/services.ts and resources/resource.ts alone', () => {
  const plugs = ['server/resources/resource.ts', 'server/services.ts']
  const files = sources(SERVER).filter((f) => !relative(ROOT, f).startsWith('server/resources/fast/'))
  const importers = files.filter((f) => importsOf(f).some((p) => p.startsWith('server/resources/fast/')))
  assert.equal(importers.map((f) => relative(ROOT, f)).sort(), plugs)
})

test.run()
