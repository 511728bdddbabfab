import { createReadStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { basename, join, relative } from 'node:path'
import { NotMediaError } from '../../media/facts.js'
import { AliasTakenError, importReceived } from '../../media/import.js'
import { IMPORT_AUDIO_FILE } from '../catalog.js'
import type { JobType } from '../jobType.js'
import { importPath } from '../parameters.js'
import { recordResult } from '../results.js'

// ImportAudioFile (9): imports a file, or every file below a folder, found on
// the server below its import folder (MAS_IMPORT_ROOT), into `library` through
// the same code as the import endpoint: the same duplicate check by md5 and
// the same metadata. One step per file; a resumed job starts at the first
// file not counted yet, and files imported before are found by their md5.
// Files that are not readable media are skipped and listed in skipped.txt.

export const importAudioFileJob: JobType<typeof IMPORT_AUDIO_FILE> = {
  ...IMPORT_AUDIO_FILE,
  async run(job) {
    const root = job.params.path
    const library = job.params.library
    const files = (await stat(root)).isDirectory() ? await filesBelow(root) : [root]
    await job.setTotal(files.length)
    const storage = job.storage
    const skipped: string[] = []
    for (let i = job.job.num_completed; i < files.length; i++) {
      job.signal.throwIfAborted()
      const name = files.length === 1 && files[0] === root ? basename(root) : relative(root, files[i])
      // a link below the folder may point anywhere: every file is confined again
      const confined = importPath(job.config, files[i])
      if ('error' in confined || !(await stat(confined.path)).isFile()) {
        skipped.push(`${name}: ${'error' in confined ? 'outside the import folder' : 'not a file'}`)
        await job.step()
        continue
      }
      const pending = await storage.receive(createReadStream(confined.path))
      try {
        await importReceived(job.db, pending, {
          library,
          user: job.owner.id,
          alias: name.slice(0, 1024),
          uniqueAlias: true,
        })
      } catch (e) {
        if (!(e instanceof NotMediaError || e instanceof AliasTakenError)) throw e
        skipped.push(`${name}: ${e.message}`)
      } finally {
        await pending.discard()
      }
      await job.step()
    }
    if (skipped.length) {
      await recordResult(
        job,
        'skipped.txt',
        `${skipped.join('\n')}\n`,
        `${skipped.length} file${skipped.length === 1 ? ' was' : 's were'} not imported (not readable media).`,
      )
    }
  },
}

/** Regular files below `dir` (following no links out of it), in a stable order. */
async function filesBelow(dir: string): Promise<string[]> {
  const out: string[] = []
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const e of entries) {
    if (e.name.startsWith('.')) continue
    const path = join(dir, e.name)
    if (e.isDirectory()) out.push(...(await filesBelow(path)))
    else if (e.isFile() || e.isSymbolicLink()) out.push(path)
  }
  return out
}
