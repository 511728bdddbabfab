import { knownUsers } from '../access.js'
import type { Endpoint } from '../http/endpoint.js'
import { fieldError } from '../http/errors.js'
import { parsePk } from '../http/fields.js'
import { API } from './resource.js'

// GET usernames/ (extension, docs/decisions.md §22): the id and username of each user the caller shares something
// with (access.ts `knownUsers`), so that a colleague's tables name people without the admin-only user/ list.
// `?id=3,7` narrows the answer to those ids; an id the caller may not name is left out exactly as one that
// names nobody, so the answer never tells whether a stranger's account exists.

const MAX_IDS = 1000

export const usernamesEndpoint: Endpoint = {
  path: `${API}/usernames/`,
  name: 'Usernames',
  description:
    'The id and username of every user the caller shares something with: itself, the owners of the libraries and ' +
    'tag sets it reads and the bearers of grants on them (the members of a bearer group too), and the creators and members ' +
    `of the groups it reads; every user for a site admin. id=ID,ID,... (at most ${MAX_IDS}) answers only those of these ids.`,
  methods: {
    GET: async (ctx) => {
      const ids = parseIds(ctx.query.id)
      let query = ctx.db
        .selectFrom('users as u')
        .select(['u.id', 'u.username'])
        .where((eb) => eb('u.id', 'in', knownUsers(eb, ctx.caller)))
      if (ids) query = query.where('u.id', '=', (eb) => eb.fn.any(eb.val(ids)))
      return { body: await query.orderBy('u.id').execute() }
    },
  },
  doc: {
    keys: ['usernames'],
    actions: { GET: 'list' },
    list: false,
    success: {
      GET: [
        {
          status: 200,
          description: 'The users the caller may name, in id order',
          body: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'username'],
              properties: { id: { type: 'integer' }, username: { type: 'string' } },
            },
          },
        },
      ],
    },
  },
}

/** The ids of `?id=`, or undefined when it is not given; a bad one is a 400 naming `id`. */
function parseIds(raw: string | undefined): number[] | undefined {
  if (raw === undefined) return undefined
  const items = raw.split(',').filter((s) => s.trim() !== '')
  if (items.length > MAX_IDS) throw fieldError('id', `Ensure this field has no more than ${MAX_IDS} elements.`)
  return items.map((item) => {
    const p = parsePk(item)
    if (!p.ok) throw fieldError('id', p.error)
    return p.value as number
  })
}

export const endpoints = () => [usernamesEndpoint]
