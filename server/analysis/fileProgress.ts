import type { RunningJob } from './jobType.js'

// A file's analysis counted in seconds of audio (docs/decisions.md §8, "Progress"): known before the file is read
// (from the duration its import stored), so a job's total never grows as it runs, and counted as the blocks of the
// file are scanned, so a long file moves the job's progress as it goes rather than once at its end.

/** The steps of a file of `seconds`: one per second of audio, at least one. */
export const audioSteps = (seconds: number) => Math.max(1, Math.ceil(Number.isFinite(seconds) ? seconds : 0))

/** The blocks of one file scanned, as they are, made into `steps` of the job, written one after another. */
export class FileProgress {
  private blocksDone = 0
  private stepped = 0
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly job: RunningJob,
    private readonly blocks: number,
    private readonly steps: number,
  ) {}

  /** `n` more blocks scanned: the steps they complete are written (in order, after those before). */
  blocksScanned(n: number): void {
    this.blocksDone = Math.min(this.blocks, this.blocksDone + Math.max(0, n))
    const due = Math.floor((this.steps * this.blocksDone) / Math.max(1, this.blocks))
    if (due <= this.stepped) return
    const more = due - this.stepped
    this.stepped = due
    this.writing = this.writing.then(() => this.job.step(more))
    // a step refused (the job stopped, or taken over) is the answer of finish(); never an unhandled rejection meanwhile
    this.writing.catch(() => {})
  }

  /** Every block scanned: the file's steps all written. Rejects as a step did. */
  finish(): Promise<void> {
    this.blocksScanned(this.blocks - this.blocksDone)
    return this.writing
  }
}
