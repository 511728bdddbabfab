// An answer whose JSON is already written (e.g. records the database wrote as JSON): sent as it is,
// with the content type fastify gives the JSON it serialises itself.

export class JsonText {
  constructor(readonly text: string) {}
}

/** A list's page as the API answers it. */
export interface Envelope<T> {
  count: number
  next: string | null
  previous: string | null
  results: T[]
}

/** A list's {count, next, previous, results} envelope around records given as JSON texts. */
export function envelopeText(env: Envelope<string>): JsonText {
  return new JsonText(
    `{"count":${env.count},"next":${JSON.stringify(env.next)},"previous":${JSON.stringify(env.previous)},` +
      `"results":[${env.results.join(',')}]}`,
  )
}
