import * as assert from 'uvu/assert'
import type { TestApp, TestUser } from './app.js'
import { grant, makeGroup, makeLibrary, type Target } from './records.js'

// The callers of an access matrix: every way a user may (or may not) reach a
// record under docs/decisions.md §6, and anonymous.

export const ROLES = ['owner', 'stranger', 'reader', 'writer', 'member', 'grantAdmin', 'admin', 'anonymous'] as const
export type Role = typeof ROLES[number]

export interface Cast {
  owner: TestUser
  /** no relation to anything */
  stranger: TestUser
  /** a user grant with read */
  reader: TestUser
  /** a user grant with read and write */
  writer: TestUser
  /** member of `group`, which holds a read and write grant */
  member: TestUser
  /** a user grant with admin */
  grantAdmin: TestUser
  /** a site admin */
  admin: TestUser
  anonymous: undefined
  group: number
}

/** Eight callers named `<prefix>-<role>`; `grantOn` gives them their grants on a record. */
export async function makeCast(t: TestApp, prefix: string): Promise<Cast> {
  const u = (role: string, admin = false) => t.user(`${prefix}-${role}`, { admin })
  const owner = await u('owner')
  const member = await u('member')
  return {
    owner, member,
    stranger: await u('stranger'), reader: await u('reader'), writer: await u('writer'),
    grantAdmin: await u('grantadmin'), admin: await u('admin', true), anonymous: undefined,
    group: await makeGroup(t.db, owner, [member]),
  }
}

/** The grants of reader, writer, the member's group and grantAdmin on `target`, made by its owner. */
export async function grantOn(t: TestApp, cast: Cast, target: Target): Promise<void> {
  await grant(t.db, cast.owner, { user: cast.reader.id }, target, ['read'])
  await grant(t.db, cast.owner, { user: cast.writer.id }, target, ['read', 'write'])
  await grant(t.db, cast.owner, { group: cast.group }, target, ['read', 'write'])
  await grant(t.db, cast.owner, { user: cast.grantAdmin.id }, target, ['admin'])
}

/** A library of the cast's owner, with the cast's grants on it (grantOn). */
export async function grantedLibrary(t: TestApp, cast: Cast): Promise<number> {
  const library = await makeLibrary(t.db, cast.owner)
  await grantOn(t, cast, { library })
  return library
}

export type Expect<T> = Record<Role, T>

/** Call once per role (`request` may build a fresh record per role) and compare every status at once. */
export async function statusMatrix(
  t: TestApp, cast: Cast, expected: Expect<number>,
  request: (role: Role) => Promise<{ method: string; url: string; body?: unknown }>,
): Promise<void> {
  const got: Partial<Expect<number>> = {}
  for (const role of ROLES) {
    const r = await request(role)
    const res = await t.call(r.method, r.url, { as: cast[role], body: r.body })
    got[role] = res.statusCode
  }
  assert.equal(got, expected)
}

/** The ids each role sees in a list (every page), compared at once; `count` must match the ids. */
export async function listMatrix(t: TestApp, cast: Cast, url: string, expected: Partial<Expect<number[]>>): Promise<void> {
  const got: Partial<Expect<number[]>> = {}
  for (const role of Object.keys(expected) as Role[]) {
    const res = await t.call('GET', url, { as: cast[role] })
    assert.is(res.statusCode, 200, `${role} lists ${url}`)
    const ids = res.data.results.map((r: { id: number }) => r.id)
    assert.is(res.data.count, ids.length, `${role}: count counts only visible rows`)
    got[role] = ids
  }
  assert.equal(got, expected)
}
