import { adminsOnly, readByAllChangedByAdmins } from '../access.js'
import { localTimestamp } from '../db/time.js'
import { ModelRefused, openModel, probeModel } from '../analysis/models/onnx.js'
import { parseManifest } from '../analysis/models/manifest.js'
import { newStoredName } from '../storage/storage.js'
import type { Context, Result } from '../http/endpoint.js'
import { badRequest, forbidden } from '../http/errors.js'
import { CREATION_DATE, parseInput, planFields, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { receiveUpload } from '../http/upload.js'
import { defineResource, render, resourceEndpoints } from './resource.js'
import { users } from './users.js'

// model/ (a mas extension, docs/decisions.md "Models"): operators' ONNX models, which ModelInference jobs run.
// Site admins add one with a multipart upload (parts `file`, the ONNX file, and `manifest`, its JSON manifest,
// and `name`), rename or delete it; every authenticated user lists and reads them. The file is stored as media
// are, with its md5; a file that does not load, or does not do what its manifest says, is refused with the reason.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  name: {
    type: 'string',
    column: 'name',
    required: true,
    maxLength: 255,
    description: 'the name users and jobs give the model by; unique',
  },
  version: { type: 'string', column: 'version', readOnly: true, description: "the manifest's version" },
  manifest: {
    type: 'object',
    column: 'manifest',
    readOnly: true,
    inForms: true,
    required: true,
    description:
      'how to run the model: sampleRate, windowSeconds, input {name, layout}, outputs {scores, embedding}, labels, thresholds, version (multipart part on create: its JSON text)',
  },
  file: {
    type: 'string',
    writeOnly: true,
    required: true,
    description: 'the ONNX file (multipart file part on create); not served back',
  },
  md5: {
    type: 'string',
    column: 'md5',
    readOnly: true,
    description: 'the md5 checksum of the ONNX file, kept in the provenance of the tags the model makes',
  },
  size: { type: 'integer', column: 'size', readOnly: true, description: 'bytes of the ONNX file' },
  embeddingSize: {
    type: 'integer',
    column: 'embedding_size',
    readOnly: true,
    nullable: true,
    description: "the length of the model's embedding output, when it has one",
  },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  creationDate: { type: 'datetime', column: 'creation_date', readOnly: true, description: CREATION_DATE },
} satisfies TableFields<'models'>
const NAME_BODY = planFields({ name: fields.name })

/** A model (model/) as the API answers it. */
export type ModelRecord = WireRecord<typeof fields>

/** POST model/: multipart, parts `file`, `manifest` and `name`; the model is loaded and one window run before it is kept. */
async function createModel(ctx: Context): Promise<Result> {
  // site admins only, before the body is read (the declaration's createScope is for the generated create)
  if (!ctx.caller.isAdmin) throw forbidden()
  const upload = await receiveUpload(ctx, ctx.storage, 'file')
  const pending = upload.file
  try {
    const { values, errors } = parseInput(NAME_BODY, upload.fields, 'create')
    const manifestText = upload.fields.manifest
    let manifest = null
    if (typeof manifestText !== 'string' || manifestText.trim() === '')
      errors.manifest = ['No manifest was submitted: a part `manifest` holding its JSON text.']
    else {
      let raw: unknown
      try {
        raw = JSON.parse(manifestText)
      } catch {
        raw = undefined
      }
      const parsed = raw === undefined ? { error: 'the manifest is not JSON' } : parseManifest(raw)
      if ('error' in parsed) errors.manifest = [`${parsed.error}.`]
      else manifest = parsed.manifest
    }
    if (!pending) errors.file = ['No file was submitted.']
    const name = values.name as string | undefined
    if (
      name !== undefined &&
      !errors.name &&
      (await ctx.db.selectFrom('models').select('id').where('name', '=', name).executeTakeFirst())
    ) {
      errors.name = ['model with this name already exists.']
    }
    if (Object.keys(errors).length) throw badRequest(errors)
    let embeddingSize: number | undefined
    try {
      const session = await openModel(pending!.localPath ?? (await bytesOf(pending!.read())))
      try {
        embeddingSize = (await probeModel(session, manifest!)).embeddingSize
      } finally {
        await session.release()
      }
    } catch (e) {
      if (e instanceof ModelRefused) throw badRequest({ file: [`${e.message}.`] })
      throw e
    }
    const stored = newStoredName(MODEL_FOLDER, { stem: name!, ext: '.onnx' })
    const row = await ctx.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('models')
        .values({
          name: name!,
          version: manifest!.version,
          file: stored,
          md5: pending!.md5,
          size: pending!.size,
          manifest: JSON.stringify(manifest),
          embedding_size: embeddingSize ?? null,
          user_id: ctx.caller.id,
          creation_date: localTimestamp(),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      await pending!.commit(stored)
      return inserted
    })
    return { status: 201, body: (await render(ctx, models, [row]))[0] }
  } finally {
    await pending?.discard()
  }
}

/** where model files are stored */
const MODEL_FOLDER = 'models'

async function bytesOf(stream: AsyncIterable<Buffer>): Promise<Uint8Array> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(c)
  return Buffer.concat(chunks)
}

export const models = defineResource({
  name: 'model',
  title: 'Model',
  description:
    "Operators' ONNX models, run by ModelInference jobs. Site admins create one with a multipart upload: parts file (the ONNX file), manifest (its JSON) and name.",
  table: 'models',
  fields,
  scope: readByAllChangedByAdmins,
  createScope: adminsOnly,
  updatable: ['name'],
  create: 'write',
  update: 'admin',
  destroy: 'admin',
  createHandler: createModel,
  beforeDelete: async (_trx, row, ctx) => async () => {
    await ctx.storage.remove(row.file)
  },
})

export const endpoints = () => resourceEndpoints(models)
