import { TEST } from '../catalog.js'
import type { JobType } from '../jobType.js'

// Test (8): counts to numToComplete, waiting secondsPerStep between steps; with
// numChildren it splits the count over that many child Test jobs instead.
// It does nothing else, which makes it the way to exercise the machinery.

export const testJob: JobType<typeof TEST> = {
  ...TEST,
  async run(job) {
    const total = job.params.numToComplete
    const perStep = job.params.secondsPerStep
    const children = job.params.numChildren
    if (children > 0) {
      await job.spawnChildren(
        Array.from({ length: children }, (_, i) => {
          const share = Math.floor(total / children) + (i < total % children ? 1 : 0)
          return {
            name: `${job.job.name || 'test'} part ${i + 1}`,
            typeId: TEST.id,
            parameters: { numToComplete: String(share), secondsPerStep: String(perStep) },
            numToComplete: share,
          }
        }),
      )
      return
    }
    await job.setTotal(total)
    for (let done = job.job.num_completed; done < total; done++) {
      if (perStep > 0) await job.sleep(perStep * 1000)
      await job.step()
    }
  },
}
