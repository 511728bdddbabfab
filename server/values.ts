// Plain values parsed from what a client sent, and DRF's messages refusing them: the same for the HTTP layer
// (server/http/fields.ts) and the domain (job parameters), which imports nothing of HTTP (docs/architecture.md).

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string }
/** a value parsed, or the message saying why not */
export const ok = (value: unknown): Parsed => ({ ok: true, value })
export const err = (error: string): Parsed => ({ ok: false, error })

export const INT_MIN = -2147483648
export const INT_MAX = 2147483647

export interface Range {
  min?: number
  max?: number
}

/** DRF's field-level messages, in one place. */
export const MSG = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  string: 'Not a valid string.',
  datetime: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]].',
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  jsonMaxLength: (n: number) => `Ensure this object has no more than ${n} characters as JSON.`,
  pkType: (got: string) => `Incorrect type. Expected pk value, received ${got}.`,
  pkMissing: (v: unknown) => `Invalid pk "${v}" - object does not exist.`,
  maxValue: (n: number) => `Ensure this value is less than or equal to ${n}.`,
  minValue: (n: number) => `Ensure this value is greater than or equal to ${n}.`,
  choice: (v: unknown) => `"${v}" is not a valid choice.`,
  notDict: (got: string) => `Invalid data. Expected a dictionary, but got ${got}.`,
  notList: (got: string) => `Expected a list of items but got type "${got}".`,
}

/** An integer within `range` (by default a PostgreSQL integer's), from a number or its text. */
export function parseInteger(v: unknown, f: Range = {}): Parsed {
  let n: number
  if (typeof v === 'number') n = v
  else if (typeof v === 'string' && /^\s*[-+]?\d+(\.0*)?\s*$/.test(v)) n = Number(v)
  else return err(MSG.integer)
  if (!Number.isInteger(n)) return err(MSG.integer)
  if (n > (f.max ?? INT_MAX)) return err(MSG.maxValue(f.max ?? INT_MAX))
  if (n < (f.min ?? INT_MIN)) return err(MSG.minValue(f.min ?? INT_MIN))
  return ok(n)
}

/** A finite number within `range`, from a number or its text. */
export function parseNumber(v: unknown, f: Range = {}): Parsed {
  let n: number
  if (typeof v === 'number') n = v
  else if (typeof v === 'string' && v.trim() !== '' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v))
    n = Number(v)
  else return err(MSG.number)
  if (!Number.isFinite(n)) return err(MSG.number)
  if (f.max !== undefined && n > f.max) return err(MSG.maxValue(f.max))
  if (f.min !== undefined && n < f.min) return err(MSG.minValue(f.min))
  return ok(n)
}

/** A string's length in characters (code points), as the original, PostgreSQL and JSON Schema count it: a
 * character outside the Basic Multilingual Plane (an emoji) is two UTF-16 units of `length`, and one here. */
export function characters(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}
