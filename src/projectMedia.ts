import { ApiError, type ApiClient } from './api.js'

// Adding media files to and removing them from a project, one request per file.

export interface MembershipChange {
  mediaFile: number
  changed: boolean
}

export async function changeProjectMedia(
  api: ApiClient,
  project: number,
  media: number[],
  action: 'add' | 'remove',
): Promise<MembershipChange[]> {
  const results: MembershipChange[] = []
  for (const id of media) {
    const answer = await api.request('POST', `project/${project}/mediaFiles/${action}/`, { json: { id }, retry: true })
    if (answer.status === 404 && (await api.request('GET', `project/${project}/`)).status === 200) {
      // the project is there: the one not found is the media file (the original answers a bare 404 for either)
      throw new Error(`media file ${id} not found`)
    }
    if (answer.status >= 400) {
      throw new ApiError(answer.status, answer.data, 'POST', api.url(`project/${project}/mediaFiles/${action}/`))
    }
    // add: 201 added, 200 already there; remove: 204 removed, 200 was not there
    results.push({ mediaFile: id, changed: answer.status !== 200 })
  }
  return results
}
