import { setFlagsFromString } from 'node:v8'

// The server's JavaScript heap (docs/decisions.md §17): a young generation of 2 MiB semi-spaces (16 MiB by
// default) and an old generation grown by half its live size after each full collection. V8 sizes its heap from
// these flags as it grows it, so they take effect when set at start, before the load. V8's heap sizing for small
// devices (--optimize-for-size), used before, kept mas smaller but collected the old generation over and over
// while a bulk create of 10,000 tags was live: more than twice the CPU of this sizing for that request.

const FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=50']

/** Called once by `mas server start`, before the app is built. */
export function boundServerHeap(): void {
  for (const flag of FLAGS) setFlagsFromString(flag)
}
