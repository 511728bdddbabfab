import { JOB_TYPE_PARAMS, type ParamKind } from '../server/analysis/catalog.js'
import type { ApiClient } from './api.js'
import { libraryId, mediaFileId, tagSetId } from './lookup.js'
import { parseRef } from './refs.js'

// `job create --param` values of parameters that name records (a library, a tag set, a media file) may
// be names, as every other flag's (docs/decisions.md §10): looked up here and sent as ids, since the
// server takes ids for them (tag classes and models it finds by name itself).

const lookups: Partial<
  Record<ParamKind, (api: ApiClient, flag: string, value: string, library?: number) => Promise<number>>
> = {
  library: (api, flag, value) => libraryId(api, flag, value),
  tagSet: (api, flag, value) => tagSetId(api, flag, value),
  mediaFile: (api, flag, value, library) => mediaFileId(api, flag, value, library),
}

/** The parameters with names of records replaced by their ids (`library`: where media files are looked up). */
export async function paramsWithIds(
  api: ApiClient,
  type: number,
  params: Record<string, string>,
  library?: number,
): Promise<Record<string, string>> {
  const specs = JOB_TYPE_PARAMS.find((t) => t.id === type)?.params ?? {}
  const out = { ...params }
  for (const [name, value] of Object.entries(params)) {
    const lookup = lookups[specs[name]?.kind as ParamKind]
    if (lookup && 'name' in parseRef(value)) out[name] = String(await lookup(api, `--param ${name}`, value, library))
  }
  return out
}
