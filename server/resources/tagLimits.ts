// The sizes a tag's JSON fields may reach, checked by the server on every write and by `mas tag import` on every
// row before anything is sent (an import refuses a table whole). Import-free, so that the CLI reads it.

/** the most characters of a tag's annotations as JSON: a table's notes, not documents */
export const ANNOTATIONS_MAX = 10_000
/** the most characters of a tag's provenance as JSON */
export const PROVENANCE_MAX = 10_000
