import { setFlagsFromString } from 'node:v8'

// The server's JavaScript heap, kept small (docs/decisions.md §17): under the mixed load of
// `npm run bench:soak`, V8's default heap growth let mas alone reach 210 MiB PSS (295 MiB with its
// PostgreSQL) for a live set well under half that. V8 sizes its heap from these flags as it grows it,
// so they take effect when set at start, before the load: a young generation of 2 MiB semi-spaces
// (16 MiB by default), and the old generation grown by a quarter at a time. V8's heuristics for small
// devices (`--optimize-for-size`), which this first used, kept mas at 68-111 MiB but made a page of 69 KB
// answers at 32 connections cost four times the CPU it costs at 4 (garbage collection and the heap's
// pages mapped and unmapped); with a fixed growth mas stays at 117-154 MiB under the same load.

const FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=25']

/** Called once by `mas server start`, before the app is built. */
export function boundServerHeap(): void {
  for (const flag of FLAGS) setFlagsFromString(flag)
}
