import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Endpoint } from '../http/endpoint.js'

// What the app serves: every route as registered (whichever plugin added it),
// and the endpoint table behind most of them. Tests walk it, so that a new
// route is checked without being listed anywhere.

export interface RouteTable {
  routes: Array<{ url: string; methods: string[] }>
  endpoints: Endpoint[]
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteTable
  }
}

async function routeTable(app: FastifyInstance) {
  const table: RouteTable = { routes: [], endpoints: [] }
  app.decorate('routeTable', table)
  app.addHook('onRoute', (r) => {
    table.routes.push({ url: r.url, methods: ([] as string[]).concat(r.method) })
  })
}

export default fp(routeTable, { name: 'route-table' })
