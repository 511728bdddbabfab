import type { InjectOptions, LightMyRequestResponse } from 'fastify'

// A browser's session login, as the original service wants it: the login page
// sets the csrftoken cookie, and the form posts it back as csrfmiddlewaretoken.

type Inject = (o: InjectOptions) => Promise<LightMyRequestResponse>

export interface SessionLogin {
  response: LightMyRequestResponse
  /** every cookie the browser holds after the login (the session and the rotated CSRF token) */
  cookies: Record<string, string>
  /** the Cookie header to send them */
  cookie: string
  /** the raw Set-Cookie lines of the login answer */
  setCookie: string[]
}

export const setCookiesOf = (res: { headers: Record<string, unknown> }) =>
  ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? [])

function cookieMap(lines: string[], into: Record<string, string> = {}): Record<string, string> {
  for (const line of lines) {
    const [pair] = line.split(';')
    const eq = pair.indexOf('=')
    into[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return into
}

export async function sessionLogin(
  inject: Inject,
  username: string,
  password: string,
  opts: { headers?: Record<string, string>; fields?: Record<string, string> } = {},
): Promise<SessionLogin> {
  const page = await inject({ method: 'GET', url: '/api-auth/login/', headers: opts.headers })
  const before = cookieMap(setCookiesOf(page))
  const response = await inject({
    method: 'POST',
    url: '/api-auth/login/',
    headers: {
      ...opts.headers,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `csrftoken=${before.csrftoken}`,
    },
    payload: new URLSearchParams({
      csrfmiddlewaretoken: before.csrftoken,
      username,
      password,
      ...opts.fields,
    }).toString(),
  })
  const setCookie = setCookiesOf(response)
  const cookies = cookieMap(setCookie, { ...before })
  return {
    response,
    cookies,
    setCookie,
    cookie: Object.entries(cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; '),
  }
}
