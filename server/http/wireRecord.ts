import type { FieldType } from './fields.js'

// The record a resource answers, as a type derived from its wire fields (declared `satisfies TableFields<…>`, so
// that each field keeps its kind): the command line reads the server's answers through these types, erased at run
// time (docs/architecture.md, "The command line"). What toJson (fields.ts) renders, as the OpenAPI document
// describes it (schema.ts, against which the tests check every answer): every field but the write-only ones, null
// where the field is nullable.

/** A JSON value, as a record's object fields hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** A JSON object: an object field's value (`items: 'string'`: of texts alone). */
export type JsonObject = { [key: string]: JsonValue }

/** The value of a field of kind K; `items` is what a list holds, or what an object's values are. */
type WireValue<K extends FieldType, I> = K extends 'integer' | 'float' | 'pk'
  ? number
  : K extends 'string' | 'datetime' | 'choice'
    ? string
    : K extends 'boolean'
      ? boolean
      : K extends 'list'
        ? Array<I extends FieldType ? WireValue<I, undefined> : JsonValue>
        : K extends 'object'
          ? I extends 'string'
            ? { [key: string]: string }
            : JsonObject
          : never

/** What the declaration of one field says of its value, in what its record answers. */
type FieldValue<F> = F extends { type: infer K extends FieldType }
  ? WireValue<K, F extends { items: infer I } ? I : undefined> | (F extends { nullable: true } ? null : never)
  : never

/** The record of a resource whose wire fields are F. */
export type WireRecord<F> = {
  -readonly [N in keyof F as F[N] extends { writeOnly: true } ? never : N]: FieldValue<F[N]>
}
