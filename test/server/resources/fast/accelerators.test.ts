import { test } from 'uvu'
import { sql } from 'kysely'
import * as assert from 'uvu/assert'
import type { LightMyRequestResponse } from 'fastify'
import { openDatabase } from '../../../../server/db/database.js'
import { seededRandom } from '../../../../server/analysis/random.js'
import type { TableName } from '../../../../server/db/schema.js'
import { defineResource, resourceEndpoints, type ResourceDeclaration } from '../../../../server/resources/resource.js'
import { tags } from '../../../../server/resources/tag.js'
import { tagSets } from '../../../../server/resources/tagSet.js'
import { api, testApp, type TestApp } from '../../../helpers/app.js'
import { atFixedTime } from '../../../helpers/clock.js'
import { COLUMNS_TYPE, columnBody } from '../../../../src/columnBody.js'
import { freshDatabase } from '../../../helpers/db.js'
import { makeWorld, type World } from '../../../helpers/world.js'

// The plain path and the accelerators answer alike (docs/architecture.md, "The plain path and the
// accelerators"). Two apps, one with the accelerators and one with MAS_ACCELERATORS=off, each on its own copy of
// one database (the world made once, then copied), are sent the same generated sequence of requests from every
// kind of caller, one at a time under a fixed clock and from one origin, and every answer is compared byte for
// byte: status, body and the headers a client reads. The accelerators' counters say which path answered.

/** the headers compared beside status and body */
const HEADERS = ['content-type', 'allow', 'vary', 'location']

let fast: TestApp
let plain: TestApp
let world: World

test.before(async () => {
  // the world, made through an app of its own on a database that then becomes the two apps' template
  const source = await freshDatabase()
  const maker = await testApp({}, { database: await openDatabase({ url: source.url, poolSize: 2 }) })
  world = await makeWorld(maker, 'diff')
  await maker.close()
  fast = await testApp({ accelerators: true }, { database: await copyOf(source.name) })
  plain = await testApp({ accelerators: false }, { database: await copyOf(source.name) })
  await source.drop()
})
test.after(async () => {
  await fast?.close()
  await plain?.close()
})

async function copyOf(name: string) {
  const copy = await freshDatabase(name)
  const d = await openDatabase({ url: copy.url, poolSize: 5 })
  return {
    ...d,
    close: async () => {
      await d.close()
      await copy.drop()
    },
  }
}

interface Request {
  method: string
  url: string
  /** the body, an array, sent as a column-wise body */
  columns?: boolean
  as: string
  body?: unknown
}

/** `count` requests drawn by `random` over the world's records and those the requests create. */
function requests(random: () => number, count: number): Request[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]
  const roles = ['owner', 'owner', 'writer', 'member', 'stranger', 'admin'] as const
  const ids = world.ids
  // ids that exist, ids that may (made by earlier requests: the sequences of both databases move alike), and none
  const near = (id: number) => pick([id, id, id + 1, id + 2, 999_999])
  const tag = () => ({
    tagSet: near(ids.tagSet),
    mediaFile: pick([ids.mediaFile, ids.mediaFile, 999_999]),
    tagClass: near(ids.tagClass),
    startTime: Math.round(random() * 100) / 1000,
    endTime: pick([0.15, 0.2, 5]),
    minFrequency: 100,
    maxFrequency: pick([2000, 50.5]),
    ...(random() < 0.2 ? { strength: random() } : {}),
    ...(random() < 0.1 ? { annotations: { note: `n${Math.floor(random() * 10)}` } } : {}),
  })
  const out: Request[] = []
  for (let i = 0; i < count; i++) {
    const as = pick(roles)
    const r = random()
    if (r < 0.2) out.push({ method: 'POST', url: 'tag/', as, body: tag() })
    else if (r < 0.27) {
      // an array of tags of mixed shapes, or of one shape (an import's batch: fast/createMany.ts), with the answers
      // an import asks for
      const many = random() < 0.5
      const valid = () => ({ ...tag(), tagSet: ids.tagSet, tagClass: ids.tagClass, mediaFile: ids.mediaFile })
      const items = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        many
          ? { ...valid(), maxFrequency: pick([2000, 2000, 50.5]), strength: 0.25, annotations: { note: 'n' } }
          : tag(),
      )
      const url = pick(['tag/', 'tag/?fields=id', 'tag/?onDuplicate=skip&fields=id', 'tag/?onDuplicate=skip'])
      // every other one written column by column (http/columnRows.ts), where its items give the same fields
      out.push({ method: 'POST', url, as, body: items, columns: i % 2 === 0 })
    } else if (r < 0.32)
      out.push({
        method: 'POST',
        url: 'tagClass/',
        as,
        body: { library: near(ids.library), className: `c${i}`, displayName: `C ${i}` },
      })
    else if (r < 0.36)
      out.push({ method: 'POST', url: 'tagSet/', as, body: { name: `s${i}`, library: near(ids.library) } })
    else if (r < 0.39) out.push({ method: 'POST', url: 'library/', as, body: { name: `l${i}` } })
    else if (r < 0.43) {
      out.push({
        method: 'POST',
        url: 'tagReview/',
        as,
        body: {
          tag: near(ids.tag),
          decision: pick(['yes', 'no', 'unsure', 'skip', 'maybe']),
          ...(random() < 0.2 ? { tagClass: near(ids.tagClass) } : {}),
        },
      })
    } else if (r < 0.55) {
      const [name, id] = pick([
        ['tag', ids.tag],
        ['tagClass', ids.tagClass],
        ['tagSet', ids.tagSet],
        ['library', ids.library],
        ['mediaFile', ids.mediaFile],
        ['jobs', ids.jobs],
        ['sensor', ids.sensor],
        ['tagExample', ids.tagExample],
      ] as const)
      out.push({ method: 'GET', url: `${name}/${near(id)}/`, as })
    } else if (r < 0.8) {
      const filters = pick([
        '',
        `tagSet=${near(ids.tagSet)}`,
        `mediaFile=${ids.mediaFile}`,
        `tagClass=${ids.tagClass}`,
        `tagSet=${ids.tagSet}&tagClass=${ids.tagClass}`,
        'ordering=-startTime',
        'tagSet=x',
      ])
      const paging = pick(['', 'page_size=2', 'page=2&page_size=2', 'page=99'])
      const list = pick(['tag', 'tag', 'tag', 'tagClass', 'tagSet', 'mediaFile', 'library', 'jobs', 'tagReview'])
      const query = [list === 'tag' ? filters : '', paging].filter(Boolean).join('&')
      out.push({ method: 'GET', url: `${list}/${query ? `?${query}` : ''}`, as })
    } else if (r < 0.9) {
      out.push({
        method: 'PATCH',
        url: `tag/${near(ids.tag)}/`,
        as,
        body: pick([{ strength: 0.5 }, { endTime: 0.19 }, { tagClass: near(ids.tagClass) }]),
      })
    } else {
      out.push({
        method: 'DELETE',
        url: `${pick(['tag', 'tag', 'tagClass'])}/${near(pick([ids.tag, ids.tagClass]))}/`,
        as,
      })
    }
  }
  return out
}

/** What a client sees of an answer. */
const seen = (res: LightMyRequestResponse) =>
  JSON.stringify({ status: res.statusCode, headers: HEADERS.map((h) => [h, res.headers[h] ?? null]), body: res.body })

test("a tag's create, detail and page are answered by the accelerators, and by the plain path when they are off", async () => {
  const owner = world.users.owner
  const body = {
    tagSet: world.ids.tagSet,
    mediaFile: world.ids.mediaFile,
    tagClass: world.ids.tagClass,
    startTime: 0,
    endTime: 0.1,
    minFrequency: 1,
    maxFrequency: 2,
  }
  // at the fixed clock of the sequence below, so that both databases keep the same tag
  for (const t of [fast, plain])
    await atFixedTime(async () => {
      const counts = t.app.services.records.answered
      const before = JSON.parse(JSON.stringify(counts)) as typeof counts
      const created = await t.call('POST', api('tag/'), { as: owner, body })
      assert.is(created.statusCode, 201)
      assert.is((await t.call('GET', api(`tag/${created.data.id}/`), { as: owner })).statusCode, 200)
      assert.is((await t.call('GET', api('tag/?page_size=1'), { as: owner })).statusCode, 200)
      const side = t === fast ? 'fast' : 'plain'
      for (const path of ['create', 'detail', 'page'] as const)
        assert.is(counts[path][side], before[path][side] + 1, `${path} by the ${side} path`)
    })
})

test('the accelerated and the plain app answer a generated sequence of requests byte for byte alike', async () => {
  const sequence = requests(seededRandom(31), 400)
  const differences: string[] = []
  let columnWise = 0
  await atFixedTime(async () => {
    for (const [i, req] of sequence.entries()) {
      const columns = req.columns ? columnBody(req.body as object[]) : undefined
      if (columns) columnWise++
      const send = (t: TestApp) =>
        t.app.inject({
          method: req.method as 'GET',
          url: api(req.url),
          headers: {
            ...world.auth[req.as as 'owner'],
            host: 'mas.test',
            ...(req.body === undefined ? {} : { 'content-type': columns ? COLUMNS_TYPE : 'application/json' }),
          },
          ...(req.body === undefined ? {} : { payload: columns ?? JSON.stringify(req.body) }),
        })
      const [a, b] = [seen(await send(fast)), seen(await send(plain))]
      if (a !== b)
        differences.push(
          `#${i} ${req.method} ${req.url} as ${req.as} ${JSON.stringify(req.body ?? null)}\n  fast:  ${a}\n  plain: ${b}`,
        )
    }
  })
  assert.is(differences.length, 0, differences.slice(0, 5).join('\n'))
  assert.ok(columnWise > 3, `${columnWise} bodies were column-wise`)
  // the sequence reached every accelerator, and the plain app never left its path
  const counts = fast.app.services.records.answered
  for (const path of ['rule', 'fetch', 'detail', 'checks', 'create', 'createMany', 'page', 'statement'] as const)
    assert.ok(counts[path].fast > 0, `${path} was accelerated`)
  for (const [path, n] of Object.entries(plain.app.services.records.answered))
    assert.is(n.fast, 0, `${path}: the plain app took no accelerator`)
})

test('a resource declared accelerated is refused at start-up when it adds what the accelerators cannot take', () => {
  const hook = async () => {}
  const endpointsOf = <T extends TableName>(declaration: ResourceDeclaration<T>) =>
    resourceEndpoints(defineResource(declaration))
  assert.throws(() => endpointsOf({ ...tags, afterWrite: hook }), /tag is declared accelerated, but: create/)
  assert.throws(() => endpointsOf({ ...tags, embed: hook }), /detail.*list/)
  // a computed field (of the request's origin and clock) is written by the database in lists and details alike
  assert.ok(
    endpointsOf({ ...tags, computed: { strength: ({ now }) => sql`extract(epoch from ${now}::timestamptz)` } }).length,
  )
  assert.throws(
    () =>
      endpointsOf({
        ...tagSets,
        fields: { ...tagSets.fields, tags: { type: 'list', items: 'integer', readOnly: true } },
      }),
    /detail/,
  )
  // without the declaration, the same resource is made (and answered by the plain path where the accelerators decline)
  assert.ok(endpointsOf({ ...tags, afterWrite: hook, accelerated: [] }).length)
})

test('a copy of a definition is refused until it is defined again: what was worked out of the original is not its', () => {
  const copy = { ...tags, embed: async () => {} }
  assert.throws(() => resourceEndpoints(copy), /tag: a copy of a definition; define it/)
  assert.not.ok('compiled' in copy)
  const defined = defineResource(copy)
  assert.is(defined.compiled.json.record, null, 'an embed: its details are rendered by the server')
  assert.ok(tags.compiled.json.record, "the original's are still written by the database")
})

test.run()
