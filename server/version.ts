import { readFileSync } from 'node:fs'

// mas's own version, as package.json gives it (two folders up from this module, built or not).

export const MAS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version
