import { Flags } from '@oclif/core'
import { AuthCommand } from '../src/baseCommand.js'
import { failure } from '../src/exits.js'
import { libraryId, mediaFileId, mediaFiles } from '../src/lookup.js'
import { stderr, table, thousandths } from '../src/output.js'

interface SimilarWindow {
  mediaFile: number
  startTime: number
  endTime: number
  distance: number
}
interface SimilarAnswer {
  count: number
  results: SimilarWindow[]
}

export default class Similar extends AuthCommand<typeof Similar> {
  static summary = 'The stored windows most like a tag or a stretch of a recording (search by example)'
  static description =
    "Searches the stored embeddings of the library (made by EmbedAudio jobs) for the windows nearest a tag's " +
    'stretch (--tag) or a stretch of a media file (--media-file with --start and --end), nearest first, by cosine distance. ' +
    "The query's own stretch is left out. --json prints the answer."
  static examples = [
    '<%= config.bin %> similar --tag 1234',
    '<%= config.bin %> similar --media-file site-A/2024-05-01/0500.wav --start 12.5 --end 14 -k 20',
    '<%= config.bin %> similar --tag 1234 --kind perch --exclude-tagged',
  ]
  static flags = {
    tag: Flags.integer({ description: 'the tag whose stretch is searched for (its id)', exclusive: ['media-file'] }),
    'media-file': Flags.string({
      description: 'the media file (alias, name or id) of the stretch searched for',
      dependsOn: ['start', 'end'],
    }),
    start: Flags.string({ description: 'start of the stretch, seconds' }),
    end: Flags.string({ description: 'end of the stretch, seconds' }),
    library: Flags.string({
      description: 'the library (name or id) the media file is found in, when its alias is in several',
    }),
    k: Flags.integer({ char: 'k', description: 'how many windows (default 100)', min: 1, max: 1000 }),
    kind: Flags.string({ description: "the stored embeddings searched: builtin (default) or a model's name" }),
    exact: Flags.boolean({ description: 'measure every stored window instead of searching the index' }),
    'exclude-tagged': Flags.boolean({
      description: "leave out windows already tagged in the tag's tag set (with --tag)",
      dependsOn: ['tag'],
    }),
  }

  async run(): Promise<SimilarAnswer> {
    const f = this.flags
    if (f.tag === undefined && f['media-file'] === undefined)
      failure('give --tag, or --media-file with --start and --end')
    const common = { k: f.k, kind: f.kind, ...(f.exact ? { exact: true } : {}) }
    let library: number
    let answer: SimilarAnswer
    if (f.tag !== undefined) {
      const tag = await this.api.get(`tag/${f.tag}/`)
      library = (await this.api.get(`mediaFile/${tag.mediaFile}/`)).library
      answer = await this.api.get<SimilarAnswer>(`tag/${f.tag}/similar/`, {
        ...common,
        ...(f['exclude-tagged'] ? { exclude: 'tagged' } : {}),
      })
    } else {
      const start = Number(f.start),
        end = Number(f.end)
      if (!Number.isFinite(start) || !Number.isFinite(end) || start < 0 || end <= start)
        failure(`--start and --end must be seconds with --end after --start (got ${f.start} and ${f.end})`)
      const inLibrary = f.library === undefined ? undefined : await libraryId(this.api, '--library', f.library)
      const file = await mediaFileId(this.api, '--media-file', f['media-file']!, inLibrary)
      library = inLibrary ?? (await this.api.get(`mediaFile/${file}/`)).library
      answer = await this.api.post<SimilarAnswer>(`library/${library}/similar/`, {
        mediaFile: file,
        startTime: start,
        endTime: end,
        ...common,
      })
    }
    if (this.jsonEnabled()) return answer
    const names = answer.results.length ? await mediaFiles(this.api, library) : undefined
    this.log(
      table(answer.results, [
        { header: 'media file', get: (w) => names?.byId(w.mediaFile)?.alias ?? String(w.mediaFile) },
        { header: 'start', get: (w) => thousandths(w.startTime) },
        { header: 'end', get: (w) => thousandths(w.endTime) },
        { header: 'distance', get: (w) => w.distance.toFixed(4) },
      ]).trimEnd(),
    )
    stderr(`${answer.count} window${answer.count === 1 ? '' : 's'}, nearest first`)
    return answer
  }
}
