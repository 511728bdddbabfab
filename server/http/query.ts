import type { Context } from './endpoint.js'
import { badRequest } from './errors.js'
import { MSG } from '../values.js'
import { parseValue, type Fields } from './fields.js'

// The query parameters of an endpoint that is not a list, parsed by their field declarations (the same that
// declare them in the schema documents): every bad or missing one a 400 naming it, all at once.

/** "a, b or c" */
const either = (choices: readonly string[]) =>
  choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`

/** The query's values for `fields`, parsed; a bad one is a 400 naming it (and, for a choice, the values it takes),
 * as is a `required` one missing. */
export function parseQuery(ctx: Context, fields: Fields): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  const errors: Record<string, string[]> = {}
  for (const [name, f] of Object.entries(fields)) {
    const raw = ctx.query[name]
    if (raw === undefined || raw === '') {
      if (f.required) errors[name] = [MSG.required]
      continue
    }
    const r = parseValue(f, raw)
    if (r.ok) values[name] = r.value
    else
      errors[name] = [
        f.type === 'choice' && f.choices ? `${r.error.replace(/\.$/, '')}: ${either(f.choices)}.` : r.error,
      ]
  }
  if (Object.keys(errors).length) throw badRequest(errors)
  return values
}
