import { sql } from 'kysely'
import { libraryAllows } from '../access.js'
import { startsWithPattern } from '../db/like.js'
import type { RunningJob } from './jobType.js'

// The media files a job of a type that reads media works on (docs/decisions.md §8): the one its mediaFileId
// names, or else its search: the files of its project, of its `library` (those whose alias starts with its
// `folder`, when given), or of both at once (the project's files in that library). Only files the job's
// owner may read, as the search finds them when the job runs: a re-run sees the files imported since.

export interface MediaSearchOptions {
  /** the whole search even when mediaFileId names one file (a child job looking at its parent's files) */
  wholeSearch?: boolean
}

/** The parameters of every type that reads media (the catalog's media search, and a child's one file). */
interface MediaSearchParams {
  readonly [name: string]: number | string | undefined
  readonly mediaFileId?: number
  readonly library?: number
  readonly folder?: string
}

/** What of a running job names its media. */
export type JobSearch = Pick<RunningJob<MediaSearchParams>, 'db' | 'job' | 'params' | 'owner'>

/** The job's media files as a query over `media_files as m`, for its caller to join and select from. */
export function jobMediaQuery(job: JobSearch, options: MediaSearchOptions = {}) {
  const one = options.wholeSearch ? undefined : job.params.mediaFileId
  const library = job.params.library
  const folder = job.params.folder
  const project = job.job.project_id
  const readable = job.db
    .selectFrom('media_files as m')
    .where((eb) => libraryAllows(eb, job.owner, eb.ref('m.library_id'), 'read'))
  if (one !== undefined) return readable.where('m.id', '=', one)
  if (project === null && library === undefined) return readable.where(sql<boolean>`false`)
  return readable
    .$if(project !== null, (q) =>
      q.where(
        'm.id',
        'in',
        job.db.selectFrom('project_media_files').select('media_file_id').where('project_id', '=', project!),
      ),
    )
    .$if(library !== undefined, (q) => q.where('m.library_id', '=', library!))
    .$if(folder !== undefined, (q) => q.where('m.alias', 'like', startsWithPattern(folder!)))
}
