import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeProject } from '../../helpers/jobs.js'
import { makeRecords } from '../../helpers/world.js'

// Every bound the OpenAPI document declares on a field of a create request
// (minimum, maximum, minLength, maxLength, pattern, enum) is the server's: a
// value just inside it is not refused for that field, a value just outside it
// is (400 naming the field). References point at records the test made.

const t = suiteApp(test)
let admin: TestUser
let doc: any
const bases: Record<string, Record<string, unknown>> = {}
let serial = 0

test.before(async () => {
  admin = await t.user('boss', { admin: true })
  doc = (await t.call('GET', '/api/openapi.json', { as: admin })).data
  const { library, tagSet, mediaFile, tagClass } = await makeRecords(t, admin)
  const project = await makeProject(t.db, admin)
  Object.assign(bases, {
    '/api/v0/library/': { name: () => `lib-${++serial}` },
    '/api/v0/tagSet/': { name: () => `set-${++serial}`, library },
    '/api/v0/tagClass/': { library, className: () => `class-${++serial}` },
    '/api/v0/sensorArray/': { name: 'array' },
    '/api/v0/sensor/': { name: 'sensor' },
    '/api/v0/userSettings/': { name: () => `settings-${++serial}` },
    '/api/v0/appUserGroup/': { name: () => `group-${++serial}` },
    '/api/v0/user/': { username: () => `user${++serial}`, password: 'a-good-password' },
    '/api/v0/jobs/': { project, type: 8 },
    '/api/v0/mediaFileMetaData/': { mediaFile, name: () => `meta-${++serial}`, value: 'v' },
    '/api/v0/tag/': { tagSet, mediaFile, tagClass, startTime: 0, endTime: 2, minFrequency: 0, maxFrequency: 100 },
    '/api/v0/tagExample/': { tagSet, mediaFile, startTime: 0, endTime: 2, minFrequency: 0, maxFrequency: 100 },
    '/api/v0/appPermission/': { bearer_type: 'user', bearer_id: admin.id, target_type: 'library', target_id: library },
  })
})

type Case = [string, unknown]

/** Values just inside and just outside each bound of a property's schema. */
function casesOf(name: string, p: any, base: unknown): { inside: Case[]; outside: Case[] } {
  const inside: Case[] = []
  const outside: Case[] = []
  const isInt = (Array.isArray(p.type) ? p.type : [p.type]).includes('integer')
  const step = isInt ? 1 : 0.001
  // a reference: its record is inside; the bounds of ids are tested from outside
  // (appPermission's bearer_id and target_id name records of the type their *_type gives, bearer_username a user)
  const reference = p['x-references'] !== undefined || /_(id|username)$/.test(name)
  if (p.minimum !== undefined) {
    if (!reference) inside.push([`minimum ${p.minimum}`, p.minimum])
    outside.push([`below minimum ${p.minimum}`, p.minimum - step])
  }
  if (p.maximum !== undefined) {
    if (!reference) inside.push([`maximum ${p.maximum}`, p.maximum])
    outside.push([`above maximum ${p.maximum}`, p.maximum + (isInt ? 1 : Math.max(step, Math.abs(p.maximum) * 1e-6))])
  }
  if (reference && base !== undefined) inside.push(['a record of the test', base])
  if (p.maxLength !== undefined) {
    inside.push([`${p.maxLength} characters`, 'x'.repeat(p.maxLength - 6) + String(++serial).padStart(6, '0')])
    outside.push([`${p.maxLength + 1} characters`, 'x'.repeat(p.maxLength + 1)])
  }
  if (p.minLength !== undefined) {
    inside.push([`${p.minLength} character(s)`, String(++serial % 10).repeat(p.minLength)])
    outside.push([`${p.minLength - 1} characters`, ''])
  }
  for (const pattern of [p.pattern, ...(p.allOf ?? []).map((a: any) => a.pattern)].filter(Boolean)) {
    if (pattern === '\\S') outside.push(['blank', '   '])
    else if (pattern.includes('\\d{4}')) {
      inside.push(['a timestamp with microseconds', '2026-01-02T03:04:05.123456'])
      outside.push(['a timestamp with a zone', '2026-01-02T03:04:05+01:00'])
    } else if (pattern.includes('\\w')) {
      inside.push(['letters, digits and @.+-_', `a.b@c+d-e_${++serial}`])
      outside.push(['a space', 'a b'])
    }
  }
  if (p.enum) {
    inside.push([`enum ${p.enum[0]}`, p.enum[0]])
    outside.push(['not in the enum', 'none-of-these'])
  }
  return { inside: reference ? inside.filter(([what]) => what === 'a record of the test') : inside, outside }
}

const valueOf = (v: unknown) => (typeof v === 'function' ? (v as () => unknown)() : v)

test('values just inside each declared bound are taken; values just outside are refused naming the field', async () => {
  let checked = 0
  for (const [path, base] of Object.entries(bases)) {
    const schema = doc.paths[path].post.requestBody.content['application/json'].schema
    const request = schema.oneOf ? schema.oneOf[0] : schema
    for (const [name, p] of Object.entries<any>(request.properties)) {
      const { inside, outside } = casesOf(name, p, base[name])
      for (const [what, value] of inside) {
        const body = { ...Object.fromEntries(Object.entries(base).map(([k, v]) => [k, valueOf(v)])), [name]: value }
        const res = await t.call('POST', path, { as: admin, body })
        assert.ok(
          res.statusCode === 201 || (res.statusCode === 400 && !(name in res.data)),
          `${path} ${name} ${what} (${JSON.stringify(value)}): ${res.statusCode} ${JSON.stringify(res.data)}`,
        )
        checked++
      }
      for (const [what, value] of outside) {
        const body = { ...Object.fromEntries(Object.entries(base).map(([k, v]) => [k, valueOf(v)])), [name]: value }
        const res = await t.call('POST', path, { as: admin, body })
        assert.is(
          res.statusCode,
          400,
          `${path} ${name} ${what} (${JSON.stringify(value)}): ${res.statusCode} ${JSON.stringify(res.data)}`,
        )
        assert.ok(name in res.data, `${path} ${name} ${what}: ${JSON.stringify(res.data)}`)
        checked++
      }
    }
  }
  assert.ok(checked > 100, `${checked} values sent`)
})

test.run()
