import { sql } from 'kysely'
import { ownedVia } from '../access.js'
import { insertWithFile, resultName } from '../analysis/resultFiles.js'
import type { Context, Result } from '../http/endpoint.js'
import { badRequest } from '../http/errors.js'
import { CREATION_DATE, parseInput, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { receiveUpload } from '../http/upload.js'
import { storedFileUrl } from './mediaFile.js'
import { checkReferences, defineResource, render, resourceEndpoints } from './resource.js'
import { jobs } from './jobs.js'

// jobResultFile/: files a job produced, with notes. Only the job's owner (and
// site admins) see, change or delete them. Created by a multipart upload
// (the published API: parts resultFile, job, notes) streamed into storage, or by the
// worker through storeResultFile() (server/analysis/resultFiles.ts); `resultFile` is the absolute URL that
// serves the bytes (GET /media/...) to the same people.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  job: { type: 'pk', column: 'job_id', target: () => jobs, required: true },
  creationDate: { type: 'datetime', column: 'creation_date', label: 'CreationDate', description: CREATION_DATE },
  resultFile: {
    type: 'string',
    readOnly: true,
    inForms: true,
    required: true,
    label: 'ResultFile',
    description: 'the file (multipart file part on create); read as its URL',
  },
  notes: { type: 'string', column: 'notes', allowBlank: true, default: '' },
} satisfies TableFields<'job_result_files'>

/** A job's result file (jobResultFile/) as the API answers it. */
export type JobResultFileRecord = WireRecord<typeof fields>

/** POST jobResultFile/: multipart only; JSON or no file part is 400 {"resultFile": ["No file was submitted."]}. */
async function createResultFile(ctx: Context): Promise<Result> {
  const upload = await receiveUpload(ctx, ctx.storage, 'resultFile')
  const pending = upload.file
  try {
    const { values, errors } = parseInput(jobResultFiles.compiled.fields, upload.fields, 'create')
    if (!errors.job) Object.assign(errors, (await checkReferences(ctx.db, jobResultFiles, ctx.caller, [values]))[0])
    if (!pending) errors.resultFile = ['No file was submitted.']
    if (Object.keys(errors).length) {
      throw badRequest(
        Object.fromEntries(
          Object.keys(fields)
            .filter((n) => errors[n])
            .map((n) => [n, errors[n]]),
        ),
      )
    }
    const row = await insertWithFile(
      ctx.db,
      pending!,
      resultName(upload.filename),
      values as { job: number; notes: string; creationDate?: string },
    )
    return { status: 201, body: (await render(ctx, jobResultFiles, [row]))[0] }
  } finally {
    await pending?.discard()
  }
}

export const jobResultFiles = defineResource({
  name: 'jobResultFile',
  title: 'Job Result File',
  description: 'Files produced by jobs. Create with a multipart upload: parts resultFile (file), job, notes.',
  table: 'job_result_files',
  fields,
  scope: ownedVia('job_id', 'jobs'),
  create: 'write',
  update: 'write',
  destroy: 'write',
  updatable: ['job', 'creationDate', 'notes'],
  createHandler: createResultFile,
  computed: {
    resultFile: (req) => sql`case when r.result_file <> '' then ${storedFileUrl(req.origin, 'result_file')} end`,
  },
  beforeDelete: async (_trx, row, ctx) => async () => {
    if (row.result_file) await ctx.storage.remove(row.result_file)
  },
})

export const endpoints = () => resourceEndpoints(jobResultFiles)
