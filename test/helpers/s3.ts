import { rmSync } from 'node:fs'
import S3rver from 's3rver'
import type { S3Settings } from '../../server/storage/s3.js'
import { tempDir } from './tempDir.js'

// An S3-compatible server for tests (s3rver, from the npm registry, keeping its objects in a temporary
// folder), started by the tests themselves on a free port. s3rver predates the SDK's default request
// checksums, so clients use checksums 'when_required'. It cannot list or abort multipart uploads (tests
// of those reach it through the front in s3multipart.ts), and it answers the one-byte range `bytes=0-0`
// with the whole object (its own bug; S3 answers one byte), so the tests ask for ranges of two bytes or more.

export interface TestBucket {
  /** settings of a storage in the bucket under `prefix` */
  settings(prefix?: string): S3Settings
  /** the environment a `mas` process needs to use the bucket under `prefix` */
  env(prefix?: string): Record<string, string>
  endpoint: string
  close(): Promise<void>
}

const ACCESS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' }

export async function startTestBucket(bucket = 'mas-test'): Promise<TestBucket> {
  const directory = tempDir('mas-s3-')
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  // the SDK's default credential chain reads these (an in-process storage)
  Object.assign(process.env, ACCESS)
  return {
    endpoint,
    settings: (prefix = '') => ({
      bucket,
      prefix,
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      checksums: 'when_required',
    }),
    env: (prefix = '') => ({
      ...ACCESS,
      MAS_STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      MAS_S3_ENDPOINT: endpoint,
      MAS_S3_REGION: 'us-east-1',
      MAS_S3_PATH_STYLE: 'true',
      MAS_S3_CHECKSUMS: 'when_required',
    }),
    close: async () => {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
