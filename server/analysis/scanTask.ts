import type { AppConfig } from '../config.js'
import { openStorageLazily } from '../storage/lazy.js'
import { openAudio } from './audioSource.js'
import type { Detector } from './detector.js'
import { scanBlocks, type FilePlan, type ScanResult, type Taken } from './scan.js'

// One stretch of one stored file scanned by a detector: what an analysis thread is given (plain data,
// copied to the thread) and does. A thread opens the storage of the configuration itself.

export interface ScanTask {
  storage: Pick<AppConfig, 'mediaDir' | 's3' | 'minBodyBytesPerSecond'>
  file: string
  detector: Detector
  plan: FilePlan
  fromBlock: number
  toBlock: number
  keep: number
  minimumStrength: number
  taken: Taken
  /** told 1 as each block is scanned: a MessagePort from a thread, the caller's own function on its thread */
  progress?: { postMessage(blocks: number): void }
}

export default async function scanTask(task: ScanTask): Promise<ScanResult> {
  const source = await openAudio(await openStorageLazily(task.storage), task.file)
  const onBlock = task.progress ? () => task.progress!.postMessage(1) : undefined
  return scanBlocks(
    source,
    task.detector,
    task.plan,
    task.fromBlock,
    task.toBlock,
    task.keep,
    task.minimumStrength,
    task.taken,
    undefined,
    onBlock,
  )
}
