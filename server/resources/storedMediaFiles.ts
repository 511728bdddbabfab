import type { Context } from '../http/endpoint.js'

// The stored bytes of media files, removed once the rows that named them are gone.

/** Remove the stored bytes of media files whose rows were deleted, one by one (mediaFile/{Id}/) or with
 * their library; run after the deletion committed. A file that cannot be removed is logged and left. */
export async function removeStoredMediaFiles(files: Array<{ file: string }>, ctx: Context): Promise<void> {
  const storage = ctx.storage
  for (const f of files)
    await storage.remove(f.file).catch((e) => ctx.req.log.warn({ err: e, file: f.file }, 'stored file not removed'))
}
