import { openAudio } from '../analysis/audioSource.js'
import { openStorageLazily } from '../storage/lazy.js'
import type { FoldState } from './pictureColumns.js'
import { foldPart, type PartTask } from './overview.js'

// One part of a long stretch's picture folded on a thread (overview.ts): what the thread is given (plain
// data, copied to it) and does. The thread opens the storage of the configuration itself.

export default async function overviewTask(task: PartTask): Promise<FoldState> {
  const source = await openAudio(await openStorageLazily(task.storage), task.file)
  return (await foldPart(source, task.plan, task.part)).state
}
