import { Args, Flags } from '@oclif/core'
import { AuthCommand, usageError } from '../../src/base-command.js'
import { ImportCache } from '../../src/import-cache.js'
import { findMediaFiles } from '../../src/media-files.js'
import { importMedia, summary, type ImportRecord } from '../../src/media-import.js'
import { stderr, warn } from '../../src/output.js'

export default class MediaImport extends AuthCommand<typeof MediaImport> {
  static summary = 'Import audio files and folders into a library, skipping what it already holds'
  static description = `Files are hashed (md5; a local cache keeps the hash of unchanged files), the server says which bytes the library already holds, and only the rest are uploaded, streamed from disk, several at once. Connection errors and 502/503/504 are retried. Re-running the same command finishes what was left. Non-media files are skipped with a warning. Exits 1 if any file failed.`

  static examples = [
    '<%= config.bin %> media import recordings/ --library 3 --recursive',
    '<%= config.bin %> media import a.wav b.flac --library 3 --sensor 5',
    '<%= config.bin %> media import survey/ --library 3 --recursive --dry-run',
    '<%= config.bin %> media import survey/ --library 3 --recursive --concurrency 8 --json > outcome.json',
  ]

  static strict = false
  static args = { path: Args.string({ description: 'files or folders (several may follow)', required: true }) }
  static flags = {
    library: Flags.integer({ char: 'l', description: 'library to import into', required: true, min: 1 }),
    recursive: Flags.boolean({ char: 'r', description: 'descend into subfolders' }),
    concurrency: Flags.integer({ char: 'c', description: 'files hashed and uploaded at once', default: 4, min: 1, max: 64 }),
    sensor: Flags.integer({ description: 'sensor that recorded the files', min: 1 }),
    'dry-run': Flags.boolean({ description: 'say what would be uploaded, upload nothing' }),
  }

  async run(): Promise<ImportRecord[]> {
    const { argv } = await this.parse(MediaImport)
    const paths = argv as string[]
    if (!paths.length) usageError('Give at least one file or folder')
    const quiet = this.jsonEnabled()
    const found = await findMediaFiles(paths, this.flags.recursive)
    for (const s of found.skipped) if (!quiet || s.failed) warn(`skipping ${s.path}: ${s.reason}`)
    await this.api.get(`library/${this.flags.library}/`)
    const cache = await ImportCache.at(this.config.dataDir).load()
    const records = await importMedia(this.api, cache, found.files, {
      library: this.flags.library, sensor: this.flags.sensor, concurrency: this.flags.concurrency, dryRun: this.flags['dry-run'], quiet,
    })
    const all: ImportRecord[] = [
      ...records,
      ...found.skipped.map((s): ImportRecord => ({ path: s.path, outcome: s.failed ? 'failed' : 'skipped', id: null, reason: s.reason })),
    ]
    for (const line of summary(all, this.flags['dry-run'])) stderr(line)
    if (all.some((r) => r.outcome === 'failed')) process.exitCode = 1
    return all
  }
}
