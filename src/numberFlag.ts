import * as Flags from '@oclif/core/flags'

// A flag whose value is a number the server reads (a threshold, an overlap), refused here when it is not a number
// at all, as a usage error (exit 2) naming the flag, before anything is asked; its range is the server's to check.

/** A flag of a decimal number, passed on as it was written. */
export const numberFlag = (description: string) =>
  Flags.custom<string>({
    description,
    parse: async (input) => {
      if (input.trim() === '' || !Number.isFinite(Number(input)))
        throw new Error(`Expected a number, not ${JSON.stringify(input)}`)
      return input.trim()
    },
  })()
