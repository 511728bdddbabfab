import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'

// Requests too broken to reach a route (a garbage request line, a bad
// Content-Length, headers too large or too slow) are answered by the HTTP
// parser's error hook, before the app sees them: here with the `{"detail": …}`
// body every other error of the API has, and the connection closed.

interface ClientError extends Error {
  code?: string
}

function answerFor(err: ClientError): { status: number; detail: string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'The request did not arrive in time.' }
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'Request header fields too large.' }
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, detail: 'Malformed request: invalid Content-Length.' }
    default:
      return { status: 400, detail: 'Malformed request.' }
  }
}

export function answerClientError(err: ClientError, socket: Socket): void {
  // a reset connection has nobody to answer
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  if (socket.writable) {
    const { status, detail } = answerFor(err)
    const body = JSON.stringify({ detail })
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(err)
}
