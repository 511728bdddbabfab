import { badRequest } from '../http/errors.js'

// The time/frequency region shared by tags and tag examples: times are seconds
// from the start of the media file, and a region never ends before it starts.

type Row = Record<string, unknown>

const value = (values: Record<string, unknown>, existing: Row | null, name: string, column: string) =>
  (name in values ? values[name] : existing?.[column]) as number | undefined

/** 400 when the region (new values over the stored ones) ends before it starts, in time or in frequency. */
export function checkRegion(values: Record<string, unknown>, existing: Row | null): void {
  const errors: Record<string, string[]> = {}
  const start = value(values, existing, 'startTime', 'start_time')
  const end = value(values, existing, 'endTime', 'end_time')
  if (start !== undefined && end !== undefined && end < start) {
    errors.endTime = ['Ensure endTime is greater than or equal to startTime.']
  }
  const low = value(values, existing, 'minFrequency', 'min_frequency')
  const high = value(values, existing, 'maxFrequency', 'max_frequency')
  if (low !== undefined && high !== undefined && high < low) {
    errors.maxFrequency = ['Ensure maxFrequency is greater than or equal to minFrequency.']
  }
  if (Object.keys(errors).length) throw badRequest(errors)
}
