import { setFlagsFromString } from 'node:v8'

// The server's JavaScript heap (docs/decisions.md §17): an old generation grown by half its live size after each
// full collection. V8 reads this flag each time it grows the old generation, so it takes effect when set at start,
// before the load; the young generation's size it reads only when the heap is made, so it stays V8's default (16 MiB
// semi-spaces) whatever is set here. V8's heap sizing for small devices (--optimize-for-size), used before, kept mas
// smaller but collected the old generation over and over while a bulk create of 10,000 tags was live: more than
// twice the CPU of this sizing for that request.

const FLAGS = ['--heap-growing-percent=50']

/** Called once by `mas server start`, before the app is built. */
export function boundServerHeap(): void {
  for (const flag of FLAGS) setFlagsFromString(flag)
}
