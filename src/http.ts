import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

// One HTTP exchange over node's own client: a command makes a few small requests, and loading a
// general-purpose client (got and its dozens of modules) cost more CPU than the requests themselves
// (docs/decisions.md, "Fast per command"). Connections are kept alive (a keep-alive socket left idle
// does not hold the process open); redirects are followed as browsers do.

export const httpAgent = new HttpAgent({ keepAlive: true })
export const httpsAgent = new HttpsAgent({ keepAlive: true })

const MAX_REDIRECTS = 10

export interface Exchange {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
  connectTimeoutMs: number
  /** how long the answer's head may take, and the longest silence of the connection */
  timeoutMs: number
  /** hears the answer's status as soon as its head arrives */
  onStatus?: (status: number) => void
}

export interface Received {
  status: number
  headers: IncomingHttpHeaders
  body: IncomingMessage
}

/** The answer's head, with its body as a stream (redirects followed). */
export async function exchange(ex: Exchange): Promise<Received> {
  let current = ex
  for (let hops = 0; ; hops++) {
    const answer = await once(current)
    const location = answer.headers.location
    if (![301, 302, 303, 307, 308].includes(answer.status) || !location || hops >= MAX_REDIRECTS) {
      current.onStatus?.(answer.status)
      return answer
    }
    answer.body.resume()
    current = redirected(current, answer.status, new URL(location, current.url))
  }
}

/** The answer's status, headers and body as text. */
export async function exchangeText(
  ex: Exchange,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const answer = await exchange(ex)
  answer.body.setEncoding('utf8')
  let text = ''
  for await (const chunk of answer.body) text += chunk
  return { status: answer.status, headers: answer.headers, text }
}

/** The request a redirect asks for: 303 (and 301/302 of anything but GET/HEAD) becomes a GET without a body;
 * credentials are not sent to another origin. */
function redirected(ex: Exchange, status: number, to: URL): Exchange {
  const asGet = status === 303 || ((status === 301 || status === 302) && ex.method !== 'GET' && ex.method !== 'HEAD')
  const headers = { ...ex.headers }
  if (asGet) delete headers['content-type']
  if (to.origin !== new URL(ex.url).origin) delete headers.authorization
  return { ...ex, url: to.toString(), headers, method: asGet ? 'GET' : ex.method, body: asGet ? undefined : ex.body }
}

function once(ex: Exchange): Promise<Received> {
  const url = new URL(ex.url)
  const https = url.protocol === 'https:'
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...ex.headers }
    if (ex.body !== undefined) headers['content-length'] = Buffer.byteLength(ex.body)
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: ex.method,
      headers,
      agent: https ? httpsAgent : httpAgent,
    })
    const fail = (message: string, code: string) => req.destroy(Object.assign(new Error(message), { code }))
    const connecting = setTimeout(() => {
      if (!req.socket || req.socket.connecting) fail('connect timed out', 'ETIMEDOUT')
    }, ex.connectTimeoutMs)
    const waiting = setTimeout(
      () => fail(`no answer within ${Math.round(ex.timeoutMs / 1000)} s`, 'ETIMEDOUT'),
      ex.timeoutMs,
    )
    req.setTimeout(ex.timeoutMs, () => fail(`no answer within ${Math.round(ex.timeoutMs / 1000)} s`, 'ETIMEDOUT'))
    req.once('close', () => {
      clearTimeout(connecting)
      clearTimeout(waiting)
    })
    req.once('error', reject)
    req.once('response', (res) => {
      clearTimeout(connecting)
      clearTimeout(waiting)
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res })
    })
    req.end(ex.body)
  })
}
