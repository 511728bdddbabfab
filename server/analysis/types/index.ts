import type { JobType } from '../jobType.js'
import { importAudioFileJob } from './importAudioFile.js'
import { randomWindowTaggingJob } from './randomWindowTagging.js'
import { supervisedTagDiscoveryChildJob, supervisedTagDiscoveryJob } from './supervisedTagDiscovery.js'
import { testJob } from './test.js'
import { unsupervisedTagDiscoveryJob } from './unsupervisedTagDiscovery.js'

// The job types this server's workers run, by JobTypes id. A job of any other
// type ends in Error saying so.
export const jobTypes = new Map<number, JobType>(
  [testJob, importAudioFileJob, randomWindowTaggingJob, supervisedTagDiscoveryJob, supervisedTagDiscoveryChildJob,
    unsupervisedTagDiscoveryJob].map((t) => [t.id, t]),
)
