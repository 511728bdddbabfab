import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { parseS3Url, type S3Settings } from './storage/s3.js'

// Everything the server reads from its environment, in one place.

export interface AppConfig {
  dataDir: string
  /** media and result files, when they live in a local directory (no `s3`) */
  mediaDir: string
  /** media and result files in an S3-compatible bucket (MAS_STORAGE_URL=s3://bucket/prefix); absent: `mediaDir` */
  s3?: S3Settings
  databaseUrl?: string
  /** the proxies whose X-Forwarded-* headers are believed (fastify's `trustProxy`): addresses and CIDR ranges,
   * a number of hops, or true (every peer, which lets any client choose its address: warned at start) */
  trustProxy: TrustProxy
  maxUploadBytes: number
  /** JSON and form bodies; bulk tag creation is the largest */
  maxBodyBytes: number
  /** items of one bulk request (a JSON array body): 413 beyond, before it is parsed */
  maxBulkItems: number
  /** failed password presentations allowed per client address and username in `loginWindowSeconds` */
  loginFailures: number
  /** failed password presentations allowed per client address, whatever the usernames, in `loginWindowSeconds` */
  loginFailuresPerAddress: number
  loginWindowSeconds: number
  sessionDays: number
  /** server-side import (ImportAudioFile jobs) reads only below this folder; absent: disabled */
  importRoot?: string
  /** how long a worker's claim on a job lasts without a heartbeat */
  jobLeaseSeconds: number
  /** a request's headers must arrive within this time */
  headersTimeoutSeconds: number
  /** a connection with no bytes either way for this long is closed */
  idleTimeoutSeconds: number
  /** a request body must arrive at least this fast, measured over each `bodyRateWindowSeconds` */
  minBodyBytesPerSecond: number
  bodyRateWindowSeconds: number
  /** the accelerators (server/resources/fast/) answer what they can; false (MAS_ACCELERATORS=off): every request
   * takes the plain path (docs/architecture.md, "The plain path and the accelerators") */
  accelerators: boolean
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  // a folder set but blank is not given: resolve('') would be the current folder, not the default
  const dataDir = resolve(overrides.dataDir || env.MAS_DATA_DIR || '.mas')
  const s3 = 's3' in overrides ? overrides.s3 : s3FromEnv(env)
  return {
    dataDir,
    mediaDir: resolve(overrides.mediaDir || env.MAS_MEDIA_DIR || join(dataDir, 'media')),
    s3,
    databaseUrl: overrides.databaseUrl ?? (env.DATABASE_URL || undefined),
    trustProxy: overrides.trustProxy ?? parseTrustProxy(env.MAS_TRUST_PROXY),
    // a day at 48 kHz as 16-bit WAV (8.3 GB) fits; in a bucket, the copy to the stored name is one request of at most 5 GiB
    maxUploadBytes: overrides.maxUploadBytes ?? positive(env.MAS_MAX_UPLOAD_BYTES, (s3 ? 5 : 16) * 1024 ** 3),
    maxBodyBytes: overrides.maxBodyBytes ?? positive(env.MAS_MAX_BODY_BYTES, 32 * 1024 ** 2),
    maxBulkItems: overrides.maxBulkItems ?? positive(env.MAS_MAX_BULK_ITEMS, 10_000),
    loginFailures: overrides.loginFailures ?? positive(env.MAS_LOGIN_FAILURES, 10),
    loginFailuresPerAddress: overrides.loginFailuresPerAddress ?? positive(env.MAS_LOGIN_FAILURES_PER_ADDRESS, 50),
    loginWindowSeconds: overrides.loginWindowSeconds ?? positive(env.MAS_LOGIN_WINDOW_SECONDS, 60),
    sessionDays: overrides.sessionDays ?? 14,
    importRoot: overrides.importRoot ?? (env.MAS_IMPORT_ROOT ? resolve(env.MAS_IMPORT_ROOT) : undefined),
    jobLeaseSeconds: overrides.jobLeaseSeconds ?? positive(env.MAS_JOB_LEASE_SECONDS, 30),
    headersTimeoutSeconds: overrides.headersTimeoutSeconds ?? positive(env.MAS_HEADERS_TIMEOUT_SECONDS, 30),
    idleTimeoutSeconds: overrides.idleTimeoutSeconds ?? positive(env.MAS_IDLE_TIMEOUT_SECONDS, 120),
    minBodyBytesPerSecond: overrides.minBodyBytesPerSecond ?? positive(env.MAS_MIN_BODY_BYTES_PER_SECOND, 1024),
    bodyRateWindowSeconds: overrides.bodyRateWindowSeconds ?? positive(env.MAS_BODY_RATE_WINDOW_SECONDS, 30),
    accelerators: overrides.accelerators ?? onOff('MAS_ACCELERATORS', env.MAS_ACCELERATORS, true),
  }
}

/** A setting that is on or off; absent or empty: `fallback`. */
function onOff(name: string, v: string | undefined, fallback: boolean): boolean {
  if (v === undefined || v === '') return fallback
  const value = v.toLowerCase()
  if (value === 'on') return true
  if (value === 'off') return false
  throw new ConfigError(`${name} must be on or off, not ${JSON.stringify(v)}`)
}

/** MAS_STORAGE_URL=s3://bucket/prefix and the MAS_S3_* settings; a MAS_STORAGE_URL of another form is refused */
function s3FromEnv(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const url = env.MAS_STORAGE_URL
  if (!url) return undefined
  const place = parseS3Url(url)
  if (!place) throw new Error(`MAS_STORAGE_URL must look like s3://bucket/prefix, not ${url}`)
  const checksums = (env.MAS_S3_CHECKSUMS ?? 'when_supported').toLowerCase()
  if (checksums !== 'when_supported' && checksums !== 'when_required') {
    throw new Error(`MAS_S3_CHECKSUMS must be when_supported or when_required, not ${env.MAS_S3_CHECKSUMS}`)
  }
  return {
    ...place,
    endpoint: env.MAS_S3_ENDPOINT || undefined,
    region: env.MAS_S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: ['1', 'true', 'yes'].includes((env.MAS_S3_PATH_STYLE ?? '').toLowerCase()),
    checksums,
  }
}

export type TrustProxy = boolean | number | string[]

/**
 * MAS_TRUST_PROXY: `10.0.0.5,10.1.0.0/16` (the proxies' addresses or ranges: the client is the rightmost
 * address of X-Forwarded-For that is not one of them), `2` (that many proxies in front), `true` (any peer),
 * or unset/`false`. Anything else is refused at start, in one line.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = (value ?? '').trim()
  if (v === '' || /^(false|no|off)$/i.test(v)) return false
  if (/^(true|yes|on)$/i.test(v)) return true
  if (/^\d+$/.test(v)) return Number(v)
  const entries = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  const bad = entries.find((e) => !isAddressOrRange(e))
  if (bad !== undefined || !entries.length) {
    throw new ConfigError(
      `MAS_TRUST_PROXY must be the proxies' addresses or CIDR ranges separated by commas, a number of hops, true or false, not ${JSON.stringify(bad ?? v)}`,
    )
  }
  return entries
}

function isAddressOrRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/')
  const family = isIP(address)
  if (!family || rest.length) return false
  if (bits === undefined) return true
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)
}

/** A setting of the environment the server cannot start with, said in one line. */
export class ConfigError extends Error {}

function positive(v: string | undefined, fallback: number): number {
  const n = Number(v)
  return v !== undefined && v !== '' && Number.isFinite(n) && n > 0 ? n : fallback
}
