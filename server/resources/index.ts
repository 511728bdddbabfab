import type { Endpoint } from '../http/endpoint.js'
import * as lookups from './lookups.js'
import * as users from './users.js'
import * as sensor from './sensor.js'
import * as userSettings from './userSettings.js'
import * as appUserGroup from './appUserGroup.js'
import * as appPermission from './appPermission.js'
import * as project from './project.js'
import * as library from './library.js'
import * as mediaFile from './mediaFile.js'
import * as mediaMetadata from './mediaMetadata.js'
import * as tagSet from './tagSet.js'
import { tagSetExportEndpoint, tagSetReviewsEndpoint } from './tagSetExport.js'
import * as tagClass from './tagClass.js'
import * as tag from './tag.js'
import * as tagExample from './tagExample.js'
import * as tagReview from './tagReview.js'
import * as reviews from './reviews.js'
import * as evaluation from './evaluation.js'
import * as activityReport from './activityReport.js'
import * as similar from './similar.js'
import * as mediaImport from './mediaImport.js'
import * as jobResultFile from './jobResultFile.js'
import * as jobs from './jobs.js'
import * as jobParameters from './jobParameters.js'
import * as randomWindow from './randomWindow.js'
import * as mediaSpectra from './mediaSpectra.js'
import * as usernames from './usernames.js'
import * as model from './model.js'

// Every resource module's endpoints, asked for once every module has loaded; a sub-list of a parent's records of
// another resource comes with the child's (tagSet/{Id}/tags/ with tag.ts). A new resource adds one line here.
export const resourceEndpoints: Endpoint[] = [
  ...lookups.endpoints(),
  ...users.endpoints(),
  ...sensor.endpoints(),
  ...userSettings.endpoints(),
  ...appUserGroup.endpoints(),
  ...appPermission.endpoints(),
  ...project.endpoints(),
  ...library.endpoints(),
  ...mediaFile.endpoints(),
  ...mediaMetadata.endpoints(),
  ...tagSet.endpoints(),
  tagSetExportEndpoint,
  tagSetReviewsEndpoint,
  ...tagClass.endpoints(),
  ...tag.endpoints(),
  ...tagExample.endpoints(),
  ...tagReview.endpoints(),
  ...reviews.endpoints(),
  ...evaluation.endpoints(),
  ...activityReport.endpoints(),
  ...similar.endpoints(),
  ...mediaImport.endpoints(),
  ...jobResultFile.endpoints(),
  ...jobs.endpoints(),
  ...jobParameters.endpoints(),
  ...randomWindow.endpoints(),
  ...mediaSpectra.endpoints(),
  ...usernames.endpoints(),
  ...model.endpoints(),
]
