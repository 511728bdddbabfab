import { setFlagsFromString } from 'node:v8'

// The server's JavaScript heap, kept small (docs/decisions.md §17): under the mixed load of
// `npm run bench:soak`, V8's default heap growth let mas alone reach 210 MiB PSS (295 MiB with its
// PostgreSQL) for a live set well under half that. V8 sizes its heap from these flags as it grows it,
// so they take effect when set at start, before the load: a young generation of 2 MiB semi-spaces
// (16 MiB by default) and the heap-growing heuristics V8 uses for small devices. Measured: the same
// throughput, mas at 68-111 MiB.

const FLAGS = ['--optimize-for-size', '--max-semi-space-size=2']

/** Called once by `mas server start`, before the app is built. */
export function boundServerHeap(): void {
  for (const flag of FLAGS) setFlagsFromString(flag)
}
