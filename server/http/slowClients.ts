import type { FastifyInstance } from 'fastify'

// A client that trickles its request body (a byte a second) would hold a
// connection and a request open for ever: no idle timeout fires while bytes
// keep coming, and a whole-request timeout would also cut off honest uploads
// of large files over slow links. So a request whose body is still arriving
// must deliver at least `minBytesPerSecond`, measured over each window of
// `windowSeconds` on its socket; below that the connection is closed.
// Slow headers are node's headersTimeout; silent sockets its idle timeout.

export interface BodyRate {
  minBytesPerSecond: number
  windowSeconds: number
}

export function cutOffSlowBodies(app: FastifyInstance, rate: BodyRate) {
  if (!(rate.minBytesPerSecond > 0 && rate.windowSeconds > 0)) return
  const windowMs = rate.windowSeconds * 1000
  const minBytes = rate.minBytesPerSecond * rate.windowSeconds
  app.addHook('onRequest', async (req, reply) => {
    const raw = req.raw
    const socket = raw.socket
    if (raw.complete || !socket) return
    let seen = socket.bytesRead
    const timer = setInterval(() => {
      if (raw.complete || socket.destroyed) return stop()
      const now = socket.bytesRead
      // a body held back by this server (paused, or its buffer full) is not the client's fault
      const heldBack = raw.isPaused() || raw.readableLength >= raw.readableHighWaterMark
      if (now - seen < minBytes && !heldBack) {
        stop()
        req.log.info({ reqId: req.id }, 'request body arriving too slowly: connection closed')
        socket.destroy()
        return
      }
      seen = now
    }, windowMs)
    timer.unref()
    const stop = () => clearInterval(timer)
    reply.raw.once('close', stop)
    raw.once('close', stop)
  })
}
