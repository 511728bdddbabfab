import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { FieldDef } from '../../../server/http/fields.js'
import { suiteApp } from '../../helpers/app.js'
import { makeWorld, type World } from '../../helpers/world.js'

// What the OpenAPI document calls read-only is what the server does: every read-only field of every record
// that can be changed, sent with a value of its own in a PATCH, a PUT and a create, is ignored, as DRF ignores
// a read-only field whatever it holds (no error, nothing stored). The resources are taken from the app's
// endpoint table, so a new one is checked without editing this file.

const t = suiteApp(test)
let w: World

test.before(async () => {
  w = await makeWorld(t)
})

/** A value of the field's kind that differs from `was`. */
function other(def: FieldDef, was: unknown): unknown {
  if (typeof was === 'number') return was + 1000
  if (typeof was === 'boolean') return !was
  if (Array.isArray(was)) return [...was, 987654]
  if (def.type === 'datetime') return '2001-02-03T04:05:06'
  if (def.type === 'integer' || def.type === 'pk') return 987654
  if (def.type === 'object') return { sent: 'by the client' }
  if (typeof was === 'string') return `${was}-sent`
  return 'sent by the client'
}

interface Target {
  name: string
  detail: string
  list?: string
  fields: Record<string, FieldDef>
  methods: string[]
  listMethods: string[]
}

/** Every record resource with a detail path that can be written, and its list path when it has one. */
function targets(): Target[] {
  const eps = t.app.routeTable.endpoints
  const out: Target[] = []
  for (const ep of eps) {
    const m = /^\/api\/v0\/([A-Za-z]+)\/:id\/$/.exec(ep.path)
    if (!m || !ep.doc?.record || !(ep.methods.PATCH || ep.methods.PUT)) continue
    const listEp = eps.find((e) => e.path === `/api/v0/${m[1]}/`)
    out.push({
      name: m[1],
      detail: ep.path,
      list: listEp?.path,
      fields: ep.doc.record,
      methods: Object.keys(ep.methods),
      listMethods: Object.keys(listEp?.methods ?? {}),
    })
  }
  return out
}

const readOnly = (fields: Record<string, FieldDef>) =>
  Object.entries(fields).filter(([, f]) => f.readOnly && !f.writeOnly)

test('the writable resources are found, and each has a record in the test world', () => {
  const found = targets().map((x) => x.name)
  assert.ok(found.length >= 12, found.join(', '))
  assert.equal(
    found.filter((n) => !(n in w.ids)),
    [],
    'resources without a record to change',
  )
})

test('PATCH and PUT ignore every read-only field, whatever it holds', async () => {
  const problems: string[] = []
  for (const target of targets()) {
    // (a PUT of a user sets its password, which ends its tokens: the stranger's record, whose token is not needed again)
    const id = target.name === 'user' ? w.users.stranger.id : w.ids[target.name]
    const url = target.detail.replace(':id', String(id))
    // the owner of the world's records, or an admin for those only admins change (users)
    let as = { auth: w.auth.owner }
    let before = await t.call('GET', url, { as })
    if (before.statusCode === 403) {
      as = { auth: w.auth.admin }
      before = await t.call('GET', url, { as })
    }
    if (before.statusCode !== 200) {
      problems.push(`GET ${url}: ${before.statusCode}`)
      continue
    }
    const sent: Record<string, unknown> = {}
    for (const [name, def] of readOnly(target.fields)) sent[name] = other(def, before.data[name])
    for (const method of ['PATCH', 'PUT'].filter((m) => target.methods.includes(m))) {
      // PUT sends the record as read, writable fields unchanged, with the read-only ones changed
      // (and a value for each required write-only field, which a read does not show: a user's password)
      const writeOnly = Object.fromEntries(
        Object.entries(target.fields)
          .filter(([, f]) => f.writeOnly && f.required && f.type === 'string')
          .map(([n]) => [n, `${n}-Sent-2026`]),
      )
      const body = method === 'PUT' ? { ...before.data, ...writeOnly, ...sent } : sent
      let res = await t.call(method, url, { as, body })
      // a record every user reads and only site admins change (model/)
      if (res.statusCode === 403 && as.auth !== w.auth.admin) {
        as = { auth: w.auth.admin }
        res = await t.call(method, url, { as, body })
      }
      if (res.statusCode !== 200) {
        problems.push(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
        continue
      }
      const after = await t.call('GET', url, { as })
      for (const [name] of readOnly(target.fields)) {
        if (JSON.stringify(res.data[name]) !== JSON.stringify(before.data[name]))
          problems.push(
            `${method} ${target.name}.${name}: answered ${JSON.stringify(res.data[name])}, was ${JSON.stringify(before.data[name])}`,
          )
        if (JSON.stringify(after.data[name]) !== JSON.stringify(before.data[name]))
          problems.push(
            `${method} ${target.name}.${name}: stored ${JSON.stringify(after.data[name])}, was ${JSON.stringify(before.data[name])}`,
          )
      }
    }
  }
  assert.equal(problems, [])
})

test('a create ignores every read-only field, whatever it holds', async () => {
  const problems: string[] = []
  let created = 0
  for (const target of targets().filter((x) => x.list && x.listMethods.includes('POST'))) {
    const url = target.detail.replace(':id', String(w.ids[target.name]))
    const before = (await t.call('GET', url, { as: { auth: w.auth.owner } })).data
    // the record as read, its names made new (names are unique in their scope), with the read-only fields changed
    const body: Record<string, unknown> = {}
    for (const [name, def] of Object.entries(target.fields)) {
      if (def.writeOnly) continue
      const was = before[name]
      body[name] = def.readOnly
        ? other(def, was)
        : typeof was === 'string' && /name|alias|username/i.test(name)
          ? `${was}-copy`
          : was
    }
    const res = await t.call('POST', target.list!, { as: { auth: w.auth.owner }, body })
    if (res.statusCode !== 201) continue // a record that cannot be copied as read (a file upload, a single record a user has); PATCH covers it
    created++
    for (const [name, def] of readOnly(target.fields)) {
      if (name === 'id') {
        if (res.data.id === body.id) problems.push(`POST ${target.name}.id: kept the id sent`)
        continue
      }
      if (JSON.stringify(res.data[name]) === JSON.stringify(body[name]))
        problems.push(`POST ${target.name}.${name} (${def.type}): kept the value sent, ${JSON.stringify(body[name])}`)
    }
  }
  assert.ok(created >= 8, `only ${created} resources could be created from a copy`)
  assert.equal(problems, [])
})

test.run()
