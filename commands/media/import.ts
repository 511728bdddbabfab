import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { usageError } from '../../src/exits.js'
import { sensorsForFolders } from '../../src/folderSensors.js'
import { ImportCache } from '../../src/importCache.js'
import { ALIAS_SOURCES, importParts, isTimeOffset, recorderFolder, START_TIME_SOURCES } from '../../src/importParts.js'
import { libraryId, sensorId } from '../../src/lookup.js'
import { findMediaFiles } from '../../src/mediaFiles.js'
import { importMedia, summary, type ImportRecord } from '../../src/mediaImport.js'
import { stderr, warn } from '../../src/output.js'

export default class MediaImport extends AuthCommand<typeof MediaImport> {
  static summary = 'Import audio files and folders into a library, skipping what it already holds'
  static description = `Files are hashed (md5; a local cache keeps the hash of unchanged files), the server says which bytes the library already holds, and only the rest are uploaded, streamed from disk, several at once. Connection errors and 502/503/504 are retried. Re-running the same command finishes what was left. Non-media files are skipped with a warning. Exits 1 if any file failed.

A file's alias is its path below the folder given (siteA/2026-05-01/20260501_050000.WAV), unique in the library: a file whose alias the library holds with other bytes is skipped and listed. The server fills realStartTime from the recorder's metadata in the file (AudioMoth comment, GUANO, wamd, BWF bext), else from the file name (20260501_050000, PREFIX_20260501_050000, 2026-05-01_05-00-00), as the recorder wrote it (AudioMoth: UTC); --time-offset shifts it. Damaged (e.g. truncated) files are imported with a warning, listed at the end, or refused with --strict.`

  static examples = [
    '<%= config.bin %> media import recordings/ --library 1 --recursive',
    '<%= config.bin %> media import season-2026/ --library 1 --recursive --sensor-per-folder --time-offset +02:00',
    '<%= config.bin %> media import dawn.wav dusk.wav --library 1 --sensor 1',
    '<%= config.bin %> media import survey/ --library 1 --recursive --dry-run',
    '<%= config.bin %> media import survey/ --library 1 --recursive --concurrency 8 --json > outcome.json',
    '<%= config.bin %> media import season-2026/ --library 1 --recursive --exclude "*.mp3" --include "SM4-01/**"',
  ]

  static strict = false
  static args = { path: Args.string({ description: 'files or folders (several may follow)', required: true }) }
  static flags = {
    library: Flags.string({ char: 'l', description: 'library to import into (name or id)', required: true }),
    recursive: Flags.boolean({ char: 'r', description: 'descend into subfolders' }),
    concurrency: Flags.integer({
      char: 'c',
      description: 'files hashed and uploaded at once',
      default: 4,
      min: 1,
      max: 64,
    }),
    sensor: Flags.string({ description: 'sensor that recorded the files (name or id)' }),
    'sensor-per-folder': Flags.boolean({
      description:
        'each first-level folder below the root is a recorder: a sensor of that name (created if missing) in a sensor array named after the library',
    }),
    'alias-from': Flags.option({
      options: ALIAS_SOURCES,
      default: 'path' as const,
      description: 'alias: the path below the folder given, or the file name alone',
    })(),
    'start-time-from': Flags.option({
      options: START_TIME_SOURCES,
      default: 'metadata' as const,
      description:
        "realStartTime from the recorder's metadata, else the file name (metadata); the file name only (name); or not at all (none)",
    })(),
    'time-offset': Flags.string({
      description:
        'shift start times read from files or names by ±hh:mm, e.g. +02:00 for UTC recordings stored in local time',
    }),
    strict: Flags.boolean({
      description:
        'refuse damaged (e.g. truncated) and empty files instead of importing them with a warning or skipping them',
    }),
    include: Flags.string({
      multiple: true,
      description:
        'import only files whose path below the folder given matches this glob (repeatable; a glob without / matches the file name)',
    }),
    exclude: Flags.string({
      multiple: true,
      description:
        'leave out files whose path below the folder given matches this glob (repeatable), e.g. --exclude "*.mp3" --exclude "siteB/**"',
    }),
    'dry-run': Flags.boolean({ description: 'say what would be uploaded, upload nothing' }),
  }

  async run(): Promise<ImportRecord[]> {
    const { argv } = await this.parse(MediaImport)
    const paths = argv as string[]
    if (!paths.length) usageError('missing argument PATH: give at least one file or folder')
    const offset = this.flags['time-offset']
    if (offset !== undefined && !isTimeOffset(offset))
      usageError(`--time-offset ${offset}: give an offset as +hh:mm or -hh:mm, e.g. +02:00`)
    const quiet = this.jsonEnabled()
    const found = await findMediaFiles(paths, this.flags.recursive, {
      include: this.flags.include,
      exclude: this.flags.exclude,
      strictEmpty: this.flags.strict,
    })
    // what --include/--exclude leave out was asked for: counted, not listed
    for (const s of found.skipped)
      if ((!quiet && !s.chosen) || s.failed) warn(`${s.failed ? 'refusing' : 'skipping'} ${s.path}: ${s.reason}`)
    const library = await this.api.get(`library/${await libraryId(this.api, '--library', this.flags.library)}/`)
    const sensor = this.flags.sensor === undefined ? undefined : await sensorId(this.api, '--sensor', this.flags.sensor)
    const folders = found.files.flatMap((f) => recorderFolder(f) ?? [])
    const folderSensors =
      this.flags['sensor-per-folder'] && !this.flags['dry-run']
        ? await sensorsForFolders(this.api, library.name, folders)
        : undefined
    const cache = await ImportCache.at(this.config.dataDir).load()
    const parts = {
      aliasFrom: this.flags['alias-from'],
      sensor,
      folderSensors,
      startTimeFrom: this.flags['start-time-from'],
      timeOffset: offset,
      strict: this.flags.strict,
    }
    const records = await importMedia(this.api, cache, found.files, {
      library,
      partsOf: (f) => importParts(f, parts),
      concurrency: this.flags.concurrency,
      dryRun: this.flags['dry-run'],
      quiet,
    })
    const all: ImportRecord[] = [
      ...records,
      ...found.skipped.map((s): ImportRecord => ({
        path: s.path,
        outcome: s.failed ? 'failed' : 'skipped',
        id: null,
        reason: s.reason,
      })),
    ]
    for (const line of summary(all, this.flags['dry-run'])) stderr(line)
    if (all.some((r) => r.outcome === 'failed')) process.exitCode = 1
    return all
  }
}
