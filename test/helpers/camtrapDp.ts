import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv04Module from 'ajv-draft-04'
import addFormatsModule from 'ajv-formats'
import { csvRecords } from '../../src/tagFormats.js'

// Checks a Camtrap DP package against the vendored Camtrap DP 1.0.2 schemas (vendor/camtrap-dp/1.0.2):
// datapackage.json against the profile with ajv, and each CSV row against its table schema's fields (Frictionless
// Table Schemas: types, required, enum, pattern, minimum/maximum, unique, and the foreign keys between the tables).
// The profile's two references to other projects' schemas are stood in for by the parts of them a package of mas
// can get wrong (docs/decisions.md §33).

const Ajv04 = Ajv04Module as unknown as typeof Ajv04Module.default
const addFormats = addFormatsModule as unknown as (ajv: InstanceType<typeof Ajv04>) => void

const VENDOR = resolve(fileURLToPath(import.meta.url), '../../../../vendor/camtrap-dp/1.0.2')
const vendored = (name: string) => JSON.parse(readFileSync(join(VENDOR, name), 'utf8'))

/** Frictionless Data Package: resources named as its name pattern, each with a path or data. */
const DATA_PACKAGE = {
  type: 'object',
  required: ['resources'],
  properties: {
    name: { type: 'string', pattern: '^([-a-z0-9._/])+$' },
    created: { type: 'string', format: 'date-time' },
    resources: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', pattern: '^([-a-z0-9._/])+$' }, path: { type: 'string' } },
      },
    },
    contributors: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
    },
    sources: { type: 'array', items: { type: 'object', required: ['title'] } },
  },
}
/** GeoJSON: a geometry of a known type with its coordinates (or, a collection, its geometries). */
const GEOJSON = {
  type: 'object',
  required: ['type'],
  properties: {
    type: {
      enum: [
        'Point',
        'MultiPoint',
        'LineString',
        'MultiLineString',
        'Polygon',
        'MultiPolygon',
        'GeometryCollection',
        'Feature',
        'FeatureCollection',
      ],
    },
  },
  oneOf: [
    { properties: { type: { enum: ['GeometryCollection'] }, geometries: { type: 'array' } }, required: ['geometries'] },
    {
      properties: { type: { not: { enum: ['GeometryCollection'] } }, coordinates: { type: 'array', minItems: 1 } },
      required: ['coordinates'],
    },
  ],
}

export interface TableField {
  name: string
  type: string
  format?: string
  constraints?: {
    required?: boolean
    unique?: boolean
    enum?: string[]
    pattern?: string
    minimum?: number
    maximum?: number
  }
}
export interface TableSchema {
  name: string
  fields: TableField[]
  missingValues: string[]
  primaryKey: string
  foreignKeys?: { fields: string; reference: { resource: string; fields: string } }[]
}

export const TABLE_SCHEMAS: Record<'deployments' | 'media' | 'observations', TableSchema> = {
  deployments: vendored('deployments-table-schema.json'),
  media: vendored('media-table-schema.json'),
  observations: vendored('observations-table-schema.json'),
}

let validateProfile: ReturnType<InstanceType<typeof Ajv04>['compile']> | undefined
function profile() {
  if (validateProfile) return validateProfile
  const ajv = new Ajv04({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema(DATA_PACKAGE, 'https://specs.frictionlessdata.io/schemas/data-package.json')
  ajv.addSchema(GEOJSON, 'http://json.schemastore.org/geojson.json')
  return (validateProfile = ajv.compile(vendored('camtrap-dp-profile.json')))
}

/** The profile's errors of a datapackage.json (none: valid). */
export function descriptorErrors(descriptor: unknown): string[] {
  const validate = profile()
  if (validate(descriptor)) return []
  return (validate.errors ?? []).map((e) => `datapackage.json${e.instancePath}: ${e.message}`)
}

/** Camtrap DP's datetime format, %Y-%m-%dT%H:%M:%S%z: whole seconds and a zone. */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:?\d{2})$/

function cellError(field: TableField, value: string): string | undefined {
  const c = field.constraints ?? {}
  switch (field.type) {
    case 'string':
      if (c.enum && !c.enum.includes(value)) return `not one of ${c.enum.join(', ')}`
      if (c.pattern && !new RegExp(`^(?:${c.pattern})$`).test(value)) return `does not match ${c.pattern}`
      return undefined
    case 'number':
    case 'integer': {
      const ok =
        field.type === 'integer' ? /^[-+]?\d+$/.test(value) : /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)
      if (!ok) return `not ${field.type === 'integer' ? 'an integer' : 'a number'}`
      const n = Number(value)
      if (c.minimum !== undefined && n < c.minimum) return `below ${c.minimum}`
      if (c.maximum !== undefined && n > c.maximum) return `above ${c.maximum}`
      return undefined
    }
    case 'boolean':
      return ['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0'].includes(value) ? undefined : 'not a boolean'
    case 'datetime':
      if (field.format !== '%Y-%m-%dT%H:%M:%S%z') return `unexpected format ${field.format}`
      return DATETIME.test(value) && Number.isFinite(Date.parse(value))
        ? undefined
        : 'not a datetime of the form YYYY-MM-DDThh:mm:ss±hh:mm'
    case 'any':
      return undefined
    default:
      return `type ${field.type} not checked`
  }
}

export interface Table {
  header: string[]
  rows: Record<string, string>[]
}

export function readTable(text: string): Table {
  const records = csvRecords(text)
  const header = records[0]?.fields ?? []
  return { header, rows: records.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r.fields[i]]))) }
}

/** The errors of a table against its schema: the schema's fields first, in their order, then `extensions`
 * (mas's extension columns, §33); every row as long as the header; each cell of a field valid. */
export function tableErrors(name: keyof typeof TABLE_SCHEMAS, text: string, extensions: readonly string[]): string[] {
  const schema = TABLE_SCHEMAS[name]
  const errors: string[] = []
  const records = csvRecords(text)
  const header = records[0]?.fields ?? []
  const expected = [...schema.fields.map((f) => f.name), ...extensions]
  if (header.join(',') !== expected.join(','))
    errors.push(`${name}.csv: header ${header.join(',')} is not ${expected.join(',')}`)
  const seen = new Map<string, Set<string>>()
  for (const rec of records.slice(1)) {
    if (rec.fields.length !== header.length) {
      errors.push(`${name}.csv line ${rec.line}: ${rec.fields.length} cells, ${header.length} columns`)
      continue
    }
    schema.fields.forEach((field, i) => {
      const value = rec.fields[i]
      if (schema.missingValues.includes(value)) {
        if (field.constraints?.required) errors.push(`${name}.csv line ${rec.line}: ${field.name} is required`)
        return
      }
      const problem = cellError(field, value)
      if (problem) errors.push(`${name}.csv line ${rec.line}: ${field.name} ${JSON.stringify(value)} ${problem}`)
      if (field.constraints?.unique) {
        let values = seen.get(field.name)
        if (!values) seen.set(field.name, (values = new Set()))
        if (values.has(value))
          errors.push(`${name}.csv line ${rec.line}: ${field.name} ${JSON.stringify(value)} is not unique`)
        values.add(value)
      }
    })
  }
  return errors
}

/** Every error of the package in `dir` (none: valid), with `extensions` the extension columns of each table. */
export function packageErrors(
  dir: string,
  extensions: { media: readonly string[]; observations: readonly string[] },
): string[] {
  const descriptor = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8'))
  const errors = descriptorErrors(descriptor)
  const texts = Object.fromEntries(
    (['deployments', 'media', 'observations'] as const).map((n) => {
      const resource = descriptor.resources.find((r: { name: string }) => r.name === n)
      return [n, readFileSync(join(dir, resource.path), 'utf8')]
    }),
  ) as Record<keyof typeof TABLE_SCHEMAS, string>
  errors.push(...tableErrors('deployments', texts.deployments, []))
  errors.push(...tableErrors('media', texts.media, extensions.media))
  errors.push(...tableErrors('observations', texts.observations, extensions.observations))
  // foreign keys: each table's references name rows of the table they reference
  const tables = Object.fromEntries(Object.entries(texts).map(([n, t]) => [n, readTable(t)])) as Record<
    keyof typeof TABLE_SCHEMAS,
    Table
  >
  for (const name of ['media', 'observations'] as const) {
    for (const fk of TABLE_SCHEMAS[name].foreignKeys ?? []) {
      const keys = new Set(
        tables[fk.reference.resource as keyof typeof TABLE_SCHEMAS].rows.map((r) => r[fk.reference.fields]),
      )
      for (const row of tables[name].rows) {
        const v = row[fk.fields]
        if (v !== '' && !keys.has(v))
          errors.push(
            `${name}.csv: ${fk.fields} ${JSON.stringify(v)} is not a ${fk.reference.resource}.${fk.reference.fields}`,
          )
      }
    }
  }
  return errors
}
