import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

// The machine's ceiling for an endpoint: a bare Fastify route that sends the
// same JSON the API sent for it (serialized per request, as a route without a
// response schema does), with no authentication and no database.
// Usage: node ceiling.js answers.json PORT, answers = {"GET /path": {status, body}}.

const [file, port] = process.argv.slice(2)
const answers = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { status: number; body: unknown }>
const app = Fastify({ logger: false })
app.get('/up', async () => ({ ok: true }))
for (const [key, answer] of Object.entries(answers)) {
  const [method, url] = key.split(' ')
  app.route({
    method: method as 'GET' | 'POST',
    url,
    handler: async (_req, reply) => reply.code(answer.status).send(answer.body),
  })
}
await app.listen({ host: '127.0.0.1', port: Number(port) })
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
