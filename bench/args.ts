import { parseArgs, type ParseArgsConfig } from 'node:util'

// What a benchmark script does with its command line and its failures, as mas's own commands do: --help
// prints its usage; a wrong option is one line and the usage on stderr, exit status 2; a failure while
// it runs is one line (the error's message), exit status 1.

/** The parsed options of a script whose usage is `usage` (the lines `--help` prints). */
export function benchArgs<T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(`${usage.trim()}\n`)
    process.exit(0)
  }
  try {
    return parseArgs(config)
  } catch (e) {
    return usageError(usage, (e as Error).message)
  }
}

/** A wrong option or value: its message and the usage on stderr, exit status 2. */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`${message}\n${usage.trim()}\n`)
  process.exit(2)
}

/** Runs the script's body; an error is printed as one line and ends the script (exit status 1), servers
 * it started included, as an uncaught error would. */
export async function runBench(main: () => Promise<void>): Promise<void> {
  try {
    await main()
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  }
}
