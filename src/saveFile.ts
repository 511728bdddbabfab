import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** Write a download to `path` whole or not at all: into `path.part`, renamed when complete. */
export async function saveAtomically(body: Readable, path: string): Promise<void> {
  const temp = `${path}.part`
  try {
    await pipeline(body, createWriteStream(temp))
    await rename(temp, path)
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
}
