// Typed arrays that grow as they are filled (the rows of a stream whose length is not known beforehand).

type Typed = Int32Array | Uint32Array | Float64Array | BigUint64Array

/** `array` when it holds at least `length` values, else a copy of it with room for twice as many (or `length`). */
export function withRoom<T extends Typed>(array: T, length: number): T {
  if (length <= array.length) return array
  const grown = new (array.constructor as new (n: number) => T)(Math.max(2 * array.length, length))
  grown.set(array as never)
  return grown
}
