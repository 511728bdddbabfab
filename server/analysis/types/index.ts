import { RUNNABLE_TYPES, type RunnableTypeName, type TypeParams } from '../catalog.js'
import type { JobType } from '../jobType.js'
import { embedAudioJob } from './embedAudio.js'
import { importAudioFileJob } from './importAudioFile.js'
import { modelInferenceJob } from './modelInference.js'
import { speechDetectionJob } from './speechDetection.js'
import { randomWindowTaggingJob } from './randomWindowTagging.js'
import { supervisedTagDiscoveryChildJob, supervisedTagDiscoveryJob } from './supervisedTagDiscovery.js'
import { testJob } from './test.js'
import { trainClassifierJob } from './trainClassifier.js'
import { unsupervisedTagDiscoveryJob } from './unsupervisedTagDiscovery.js'

// What each type the catalog declares does, by its name there: a type declared without a runner, or a runner
// of no declared type, is a compile error. A job of any other type ends in Error saying so.
const runs: { [N in RunnableTypeName]: JobType<(typeof RUNNABLE_TYPES)[N]>['run'] } = {
  Test: testJob.run,
  ImportAudioFile: importAudioFileJob.run,
  RandomWindowTagging: randomWindowTaggingJob.run,
  SupervisedTagDiscovery: supervisedTagDiscoveryJob.run,
  SupervisedTagDiscoveryChild: supervisedTagDiscoveryChildJob.run,
  UnsupervisedTagDiscovery: unsupervisedTagDiscoveryJob.run,
  ModelInference: modelInferenceJob.run,
  SpeechDetection: speechDetectionJob.run,
  EmbedAudio: embedAudioJob.run,
  TrainClassifier: trainClassifierJob.run,
}

/** The job types this server's workers run, by JobTypes id: each the catalog's declaration with its run. A run reads
 * its type's parameters (ParamsOf); the worker hands it those it checked against that same declaration
 * (parameters.ts), which is what lets each run be held here as a run of any parameters. */
export const jobTypes = new Map<number, JobType>(
  (Object.entries(RUNNABLE_TYPES) as Array<[RunnableTypeName, TypeParams]>).map(([name, t]) => [
    t.id,
    { ...t, run: runs[name] as JobType['run'] },
  ]),
)
