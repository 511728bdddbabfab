import { StorageError } from './storage.js'

// The bucket's answers as the storage tells them (./s3.ts): its own failures, a missing object, an unsupported call.

/** the bucket's own failures, told from the source's (a client that broke off): the server's trouble */
export function asStorageError(e: unknown): unknown {
  return (e as { $metadata?: unknown }).$metadata
    ? new StorageError(`the bucket refused: ${(e as Error).message}`, { cause: e })
    : e
}

export function isMissing(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } }
  return err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404
}

export function notImplemented(e: unknown): boolean {
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } }
  return err.name === 'NotImplemented' || err.Code === 'NotImplemented' || err.$metadata?.httpStatusCode === 501
}
