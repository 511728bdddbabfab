import type { AppPermissionRecord } from '../server/resources/appPermission.js'
import type { AppUserGroupRecord } from '../server/resources/appUserGroup.js'
import type { JobParametersRecord } from '../server/resources/jobParameters.js'
import type { JobResultFileRecord } from '../server/resources/jobResultFile.js'
import type { JobRecord } from '../server/resources/jobs.js'
import type { LibraryRecord } from '../server/resources/library.js'
import type { LookupRecord } from '../server/resources/lookups.js'
import type { MediaFileRecord } from '../server/resources/mediaFile.js'
import type {
  MediaFileMetaDataRecord,
  UserMetaDataFieldRecord,
  UserMetaDataValueRecord,
} from '../server/resources/mediaMetadata.js'
import type { ModelRecord } from '../server/resources/model.js'
import type { ProjectRecord } from '../server/resources/project.js'
import type { RandomWindowRecord } from '../server/resources/randomWindow.js'
import type { SensorArrayRecord, SensorRecord } from '../server/resources/sensor.js'
import type { TagRecord } from '../server/resources/tag.js'
import type { TagClassRecord } from '../server/resources/tagClass.js'
import type { TagExampleRecord } from '../server/resources/tagExample.js'
import type { TagReviewRecord } from '../server/resources/tagReview.js'
import type { TagSetRecord } from '../server/resources/tagSet.js'
import type { UserRecord } from '../server/resources/users.js'

// The records the command line reads from the API: the types the server derives from its declarations
// (server/http/wireRecord.ts), imported as types only, so that `mas` loads no server module for them. The command
// line works against the original service too (docs/decisions.md §10): a field only mas answers is optional here.

/** Record R as either service answers it: the fields K, which only mas answers, may be absent. */
type Answered<R, K extends keyof R> = Omit<R, K> & Partial<Pick<R, K>>

export type Library = Answered<LibraryRecord, 'speechPolicy'>
export type TagSet = TagSetRecord
export type TagClass = TagClassRecord
export type Tag = Answered<TagRecord, 'annotations' | 'provenance'>
export type TagExample = TagExampleRecord
export type MediaFileMetaData = MediaFileMetaDataRecord
/** realStartTime: the published spec saw the original's lists answer it and its details not */
export type MediaFile = Omit<MediaFileRecord, 'mediafilemetadata_set' | 'realStartTime'> & {
  realStartTime?: string | null
  mediafilemetadata_set: MediaFileMetaData[]
}
export type UserMetaDataField = UserMetaDataFieldRecord
export type UserMetaDataValue = UserMetaDataValueRecord
export type Project = ProjectRecord
export type Sensor = SensorRecord
export type SensorArray = SensorArrayRecord
export type JobParameter = JobParametersRecord
export type Job = Answered<
  Omit<JobRecord, 'jobparameters_set'> & { jobparameters_set: JobParameter[] },
  'workerSilentSeconds' | 'waitingFor'
>
export type JobResultFile = JobResultFileRecord
export type RandomWindow = RandomWindowRecord
export type User = UserRecord
/** a grant (appPermission/) */
export type Grant = AppPermissionRecord
/** a group of users (appUserGroup/) */
export type Group = AppUserGroupRecord
/** a record of a lookup table (jobTypes/, jobStatusTypes/, projectTypes/, mediaTypes/) */
export type Lookup = LookupRecord
/** extensions: mas alone answers them */
export type Review = TagReviewRecord
export type Model = ModelRecord
