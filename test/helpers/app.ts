import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type BuildOptions } from '../../server/app.js'
import type { AppConfig } from '../../server/config.js'
import type { Database } from '../../server/db/database.js'
import { hashPassword } from '../../server/auth/passwords.js'
import { tokenFor } from '../../server/auth/routes.js'
import { localTimestamp } from '../../server/db/time.js'
import { testDatabase } from './db.js'
import { OpenApiChecker } from './openapi.js'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'uvu'
import { tempDir } from './tempDir.js'

/** A path of the v0 API. */
export const api = (path: string) => `/api/v0/${path}`

export interface TestUser {
  id: number
  username: string
  password: string
  token: string
  auth: Record<string, string>
}

export interface TestApp {
  app: FastifyInstance
  database: Database
  db: Database['db']
  /** a user with a token; `auth` is the Authorization header to send */
  user(username: string, opts?: { admin?: boolean; active?: boolean; password?: string }): Promise<TestUser>
  /** app.inject with JSON parsed; `as` sends that user's token */
  call(
    method: string,
    url: string,
    opts?: { as?: Pick<TestUser, 'auth'>; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse & { data: any }>
  close(): Promise<void>
}

/** `options.database`: the app's database (closed with it), else a fresh one dropped on close. `checkAnswers:
 * false` leaves out the OpenAPI check of every answer, for a benchmark measuring the server as it ships. */
export async function testApp(
  config: Partial<AppConfig> = {},
  options: Pick<BuildOptions, 'storage'> & { database?: Database; checkAnswers?: boolean } = {},
): Promise<TestApp> {
  const { database: given, checkAnswers = true, ...buildOptions } = options
  const database = given ?? (await testDatabase())
  const dataDir = tempDir('mas-test-')
  const app = await buildApp({
    database,
    config: { dataDir, mediaDir: join(dataDir, 'media'), ...config },
    ...buildOptions,
  })
  // every answer checked against the OpenAPI document (test/helpers/openapi.ts)
  const openapi = new OpenApiChecker(app.routeTable.endpoints)
  if (checkAnswers) openapi.install(app)
  await app.ready()
  const db = database.db
  return {
    app,
    database,
    db,
    async user(username, opts = {}) {
      const password = opts.password ?? `${username}-pass`
      const row = await db
        .insertInto('users')
        .values({
          username,
          password: await hashPassword(password),
          is_admin: opts.admin ?? false,
          is_active: opts.active ?? true,
          date_joined: localTimestamp(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      const token = await tokenFor(db, row.id)
      return { id: row.id, username, password, token, auth: { authorization: `Token ${token}` } }
    },
    async call(method, url, opts = {}) {
      const req: InjectOptions = {
        method: method as any,
        url,
        headers: { ...(opts.as?.auth ?? {}), ...(opts.headers ?? {}) },
      }
      if (opts.body !== undefined) {
        if (typeof opts.body === 'string') req.payload = opts.body
        else {
          req.payload = JSON.stringify(opts.body)
          ;(req.headers as any)['content-type'] ??= 'application/json'
        }
      }
      const res = await app.inject(req)
      let data: any
      try {
        data = res.body ? JSON.parse(res.body) : undefined
      } catch {
        data = res.body
      }
      return Object.assign(res, { data })
    },
    async close() {
      await app.close()
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
      if (openapi.violations.length) {
        // each one already failed its test's request with a 500; the run fails as well
        process.stderr.write(
          `${openapi.violations.length} answer(s) contradicted the OpenAPI document:\n${[...new Set(openapi.violations)].join('\n')}\n`,
        )
        process.exitCode = 1
      }
    },
  }
}

/** The suite's app, and what the suite started on it. */
export interface SuiteApp extends TestApp {
  /** `stop` runs after the suite's last test, before its app closes: for what the suite started on the app or
   * its database (a worker, another app over the same database), latest first. */
  beforeClose(stop: () => Promise<unknown> | unknown): void
}

/** The set-up every server test file shares: the suite's app, made before its first test (ahead of the
 * file's own `before`, which may use it) and closed after its last, its database dropped and its data
 * folder removed. The answer stands for that app from the moment the suite runs. */
export function suiteApp(
  suite: Test,
  config: Partial<AppConfig> = {},
  options: Pick<BuildOptions, 'storage'> = {},
): SuiteApp {
  let made: TestApp | undefined
  const stops: Array<() => Promise<unknown> | unknown> = []
  const the = () => {
    if (!made) throw new Error("the suite's app exists only while the suite runs")
    return made
  }
  suite.before(async () => {
    made = await testApp(config, options)
  })
  suite.after(async () => {
    try {
      for (const stop of stops.splice(0).reverse()) await stop()
    } finally {
      await made?.close()
      made = undefined
    }
  })
  return {
    get app() {
      return the().app
    },
    get database() {
      return the().database
    },
    get db() {
      return the().db
    },
    user: (username, opts) => the().user(username, opts),
    call: (method, url, opts) => the().call(method, url, opts),
    close: async () => {
      throw new Error('the suite closes its app itself')
    },
    beforeClose: (stop) => {
      stops.push(stop)
    },
  }
}
