import type {
  Grant,
  Group,
  Job,
  JobParameter,
  JobResultFile,
  Library,
  Lookup,
  MediaFile,
  MediaFileMetaData,
  Model,
  Project,
  RandomWindow,
  Review,
  Sensor,
  SensorArray,
  Tag,
  TagClass,
  TagExample,
  TagSet,
  User,
  UserMetaDataField,
  UserMetaDataValue,
} from './records.js'

// The API's paths and the records they answer, for the client's types (src/api.ts): `api.get(`tagSet/${id}/`)` is
// a TagSet, `api.all('library/')` Library[]. A path not listed here (an extension's own answer) is read with the
// type given at the call.

/** A record's path, and the record it answers (GET; PATCH and PUT answer it changed). */
export interface RecordPaths {
  [path: `library/${number}/`]: Library
  [path: `tagSet/${number}/`]: TagSet
  [path: `tagClass/${number}/`]: TagClass
  [path: `tag/${number}/`]: Tag
  [path: `tagExample/${number}/`]: TagExample
  [path: `mediaFile/${number}/`]: MediaFile
  [path: `mediaFileMetaData/${number}/`]: MediaFileMetaData
  [path: `mediaFileUserMetaDataField/${number}/`]: UserMetaDataField
  [path: `mediaFileUserMetaData/${number}/`]: UserMetaDataValue
  [path: `project/${number}/`]: Project
  [path: `sensor/${number}/`]: Sensor
  [path: `sensorArray/${number}/`]: SensorArray
  [path: `jobs/${number}/`]: Job
  [path: `jobParameters/${number}/`]: JobParameter
  [path: `jobResultFile/${number}/`]: JobResultFile
  [path: `randomWindow/${number}/`]: RandomWindow
  [path: `user/${number}/`]: User
  [path: `appPermission/${number}/`]: Grant
  [path: `appUserGroup/${number}/`]: Group
  [path: `tagReview/${number}/`]: Review
  [path: `model/${number}/`]: Model
  [path: `jobTypes/${number}/`]: Lookup
  [path: `jobStatusTypes/${number}/`]: Lookup
  [path: `projectTypes/${number}/`]: Lookup
  [path: `mediaTypes/${number}/`]: Lookup
}

/** A list's path, and the records it holds (POST to it answers the record created). */
export interface ListPaths {
  'library/': Library
  'tagSet/': TagSet
  'tagClass/': TagClass
  'tag/': Tag
  'tagExample/': TagExample
  'mediaFile/': MediaFile
  'mediaFileMetaData/': MediaFileMetaData
  'mediaFileUserMetaDataField/': UserMetaDataField
  'mediaFileUserMetaData/': UserMetaDataValue
  'project/': Project
  'sensor/': Sensor
  'sensorArray/': SensorArray
  'jobs/': Job
  'jobParameters/': JobParameter
  'jobResultFile/': JobResultFile
  'randomWindow/': RandomWindow
  'user/': User
  'appPermission/': Grant
  'appUserGroup/': Group
  'tagReview/': Review
  'model/': Model
  'jobTypes/': Lookup
  'jobStatusTypes/': Lookup
  'projectTypes/': Lookup
  'mediaTypes/': Lookup
  [path: `tagSet/${number}/tags/`]: Tag
  [path: `library/${number}/mediaFiles/`]: MediaFile
  [path: `library/${number}/userMetaDataFields/`]: UserMetaDataField
  [path: `mediaFile/${number}/userMetaData/`]: UserMetaDataValue
  [path: `mediaFile/${number}/projects/`]: Project
  [path: `project/${number}/mediaFiles/`]: MediaFile
}

export type RecordPath = keyof RecordPaths
export type ListPath = keyof ListPaths

/** The record at path P. */
export type RecordAt<P extends RecordPath> = RecordPaths[P]
/** A record of the list at path P. */
export type ListRecord<P extends ListPath> = ListPaths[P]
