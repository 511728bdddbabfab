// The kind of each value a compiled statement is made for (statements.ts): null and booleans are written into
// the statement, so into its cache key; numbers and texts are its slots, filled at each use; a value of any
// other kind is never cached. Each kind is one character, so that a row's kinds joined are part of a key.

export const VALUE_KIND = { null: 'z', number: 'n', text: 's', true: 't', false: 'f', other: '?' } as const

export type ValueKind = (typeof VALUE_KIND)[keyof typeof VALUE_KIND]

export function valueKind(v: unknown): ValueKind {
  return v === null || v === undefined
    ? VALUE_KIND.null
    : typeof v === 'number'
      ? VALUE_KIND.number
      : typeof v === 'string'
        ? VALUE_KIND.text
        : v === true
          ? VALUE_KIND.true
          : v === false
            ? VALUE_KIND.false
            : VALUE_KIND.other
}

/** Values of these kinds are slots of a plan; null and booleans are written into its key instead. */
export const isSlot = (kind: string): boolean => kind === VALUE_KIND.number || kind === VALUE_KIND.text

/** Whether values of these kinds (one kind, or a row's joined) may be compiled once and cached. */
export const cacheableKinds = (kinds: string): boolean => !kinds.includes(VALUE_KIND.other)
