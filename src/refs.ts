// How a value given on the command line or in a table refers to a record: by id or by name.

export type Ref = { id: number } | { name: string }

const isId = (s: string) => /^\d+$/.test(s)

/** How a value refers to a record: digits only (or a JSON number) an id, `name:X` the name X, else a name. */
export function parseRef(value: string | number): Ref {
  if (typeof value === 'number') return { id: value }
  const v = value.trim()
  if (v.startsWith('name:')) return { name: v.slice(5) }
  return isId(v) ? { id: Number(v) } : { name: v }
}
