import type { Migration, MigrationProvider } from 'kysely'
import * as initial from './2026_11_21_0001_initial.js'
import * as jobLeases from './2026_11_22_0002_job_leases.js'
import * as tagSetCounts from './2026_11_22_0003_tag_set_counts.js'
import * as credentialDigests from './2026_11_22_0004_credential_digests.js'
import * as tagReferenceChecks from './2026_11_22_0005_tag_reference_checks.js'
import * as loginFailures from './2026_11_23_1401_login_failures.js'
import * as jobLeaseRenewed from './2026_11_23_1402_job_lease_renewed.js'
import * as mediaAliasStartTime from './2026_11_23_1801_media_alias_start_time.js'
import * as callerNotifications from './2026_11_24_0001_caller_notifications.js'
import * as uriPath from './2026_11_24_0002_uri_path.js'
import * as tagInsertTrigger from './2026_11_24_0003_tag_insert_trigger.js'
import * as embeddedListsJson from './2026_11_24_0004_embedded_lists_json.js'
import * as jobProjectOptional from './2026_11_26_1001_job_project_optional.js'
import * as workerHeartbeats from './2026_11_26_3001_worker_heartbeats.js'
import * as tagReviews from './2026_11_26_4001_tag_reviews.js'
import * as tagAnnotations from './2026_11_27_3301_tag_annotations.js'
import * as namesVersion from './2026_11_27_3311_names_version.js'
import * as reviewTagCopies from './2026_11_27_3401_review_tag_copies.js'
import * as tagFilterCounts from './2026_11_27_3501_tag_filter_counts.js'
import * as tagFilterIndexes from './2026_11_27_3502_tag_filter_indexes.js'
import * as tagMachineIndex from './2026_11_27_3503_tag_machine_index.js'
import * as tagBandCounts from './2026_11_28_3401_tag_band_counts.js'
import * as mediaFileListIndexes from './2026_11_28_3501_media_file_list_indexes.js'
import * as tagFileCountsUnchecked from './2026_11_29_3501_tag_file_counts_unchecked.js'
import * as tagIdentityIndex from './2026_11_29_3502_tag_identity_index.js'
import * as tagRegionFits from './2026_11_29_4201_tag_region_fits.js'
import * as tagProvenance from './2026_11_29_4401_tag_provenance.js'
import * as models from './2026_11_29_4402_models.js'
import * as modelInferenceType from './2026_11_29_4403_model_inference_type.js'
import * as speechDetectionType from './2026_11_29_4404_speech_detection_type.js'
import * as windowEmbeddings from './2026_11_29_4405_window_embeddings.js'
import * as speechPolicy from './2026_11_29_4408_speech_policy.js'
import * as keptCountsSetUnchecked from './2026_12_01_4201_kept_counts_set_unchecked.js'
import * as tagInsertOneLock from './2026_12_01_4202_tag_insert_one_lock.js'
import * as tagIndexesSmaller from './2026_12_01_4203_tag_indexes_smaller.js'
import * as tagIndexesPacked from './2026_12_02_4204_tag_indexes_packed.js'
import * as tagAnnotationsEmptyNull from './2026_12_02_4205_tag_annotations_empty_null.js'
import * as tagColumnsPacked from './2026_12_02_4206_tag_columns_packed.js'
import * as tagUserSummaries from './2026_12_02_4207_tag_user_summaries.js'

// Listed by hand so the compiled server needs no directory scan; names sort by date.
const migrations: Record<string, Migration> = {
  '2026_11_21_0001_initial': initial,
  '2026_11_22_0002_job_leases': jobLeases,
  '2026_11_22_0003_tag_set_counts': tagSetCounts,
  '2026_11_22_0004_credential_digests': credentialDigests,
  '2026_11_22_0005_tag_reference_checks': tagReferenceChecks,
  '2026_11_23_1401_login_failures': loginFailures,
  '2026_11_23_1402_job_lease_renewed': jobLeaseRenewed,
  '2026_11_23_1801_media_alias_start_time': mediaAliasStartTime,
  '2026_11_24_0001_caller_notifications': callerNotifications,
  '2026_11_24_0002_uri_path': uriPath,
  '2026_11_24_0003_tag_insert_trigger': tagInsertTrigger,
  '2026_11_24_0004_embedded_lists_json': embeddedListsJson,
  '2026_11_26_1001_job_project_optional': jobProjectOptional,
  '2026_11_26_3001_worker_heartbeats': workerHeartbeats,
  '2026_11_26_4001_tag_reviews': tagReviews,
  '2026_11_27_3301_tag_annotations': tagAnnotations,
  '2026_11_27_3311_names_version': namesVersion,
  '2026_11_27_3401_review_tag_copies': reviewTagCopies,
  '2026_11_27_3501_tag_filter_counts': tagFilterCounts,
  '2026_11_27_3502_tag_filter_indexes': tagFilterIndexes,
  '2026_11_27_3503_tag_machine_index': tagMachineIndex,
  '2026_11_28_3401_tag_band_counts': tagBandCounts,
  '2026_11_28_3501_media_file_list_indexes': mediaFileListIndexes,
  '2026_11_29_3501_tag_file_counts_unchecked': tagFileCountsUnchecked,
  '2026_11_29_3502_tag_identity_index': tagIdentityIndex,
  '2026_11_29_4201_tag_region_fits': tagRegionFits,
  '2026_11_29_4401_tag_provenance': tagProvenance,
  '2026_11_29_4402_models': models,
  '2026_11_29_4403_model_inference_type': modelInferenceType,
  '2026_11_29_4404_speech_detection_type': speechDetectionType,
  '2026_11_29_4405_window_embeddings': windowEmbeddings,
  '2026_11_29_4408_speech_policy': speechPolicy,
  '2026_12_01_4201_kept_counts_set_unchecked': keptCountsSetUnchecked,
  '2026_12_01_4202_tag_insert_one_lock': tagInsertOneLock,
  '2026_12_01_4203_tag_indexes_smaller': tagIndexesSmaller,
  '2026_12_02_4204_tag_indexes_packed': tagIndexesPacked,
  '2026_12_02_4205_tag_annotations_empty_null': tagAnnotationsEmptyNull,
  '2026_12_02_4206_tag_columns_packed': tagColumnsPacked,
  '2026_12_02_4207_tag_user_summaries': tagUserSummaries,
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}
