import type { JobType } from '../jobType.js'
import { importAudioFileJob } from './importAudioFile.js'
import { randomWindowTaggingJob } from './randomWindowTagging.js'
import { testJob } from './test.js'

// The job types this server's workers run, by JobTypes id. A job of any other
// type ends in Error saying so.
export const jobTypes = new Map<number, JobType>(
  [testJob, importAudioFileJob, randomWindowTaggingJob].map((t) => [t.id, t]),
)
