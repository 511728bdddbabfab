import type { JobType } from '../jobType.js'

// ImportAudioFile (9): placeholder until the shared import code is in place.
export const importAudioFileJob: JobType = {
  id: 9,
  name: 'ImportAudioFile',
  params: {
    path: { kind: 'path', required: true },
    library: { kind: 'library', required: true },
  },
  async run() {
    throw new Error('Server-side import is not available yet.')
  },
}
