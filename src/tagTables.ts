import { parseRaven } from './raven.js'
import {
  detectFormat,
  parseCsv,
  parseJsonArray,
  parseNdjson,
  type ParsedRows,
  type ParseOptions,
} from './tagFormats.js'

// A tag table in any of mas's own formats (CSV, JSON, NDJSON) or a Raven selection table, its format detected
// from its content when not given.

export function parseTags(text: string, opts: ParseOptions = {}): ParsedRows {
  const format = opts.format ?? detectFormat(text)
  if (format === 'json') return parseJsonArray(text)
  if (format === 'ndjson') return parseNdjson(text)
  if (format === 'raven') return parseRaven(text, opts)
  return parseCsv(text, opts.mediaFile)
}
