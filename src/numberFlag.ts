import * as Flags from '@oclif/core/flags'
import { numberValue } from './tagFormats.js'

// A flag whose value is a number the server reads (a threshold, an overlap), refused here when it is not a number
// at all, as a usage error (exit 2) naming the flag, before anything is asked; its range is the server's to check.

/** A flag of a decimal number, passed on as it was written. */
export const numberFlag = (description: string) =>
  Flags.custom<string>({
    description,
    parse: async (input) => {
      // a number as a table's cell is read (tagFormats.ts): decimal, as the server reads it too
      if (typeof numberValue(input) !== 'number') throw new Error(`Expected a number, not ${JSON.stringify(input)}`)
      return input.trim()
    },
  })()
