import { DEFAULT_IOU, MAX_CURVE_POINTS } from '../analysis/evaluation.js'
import { evaluateTagSet } from '../analysis/tagSetEvaluation.js'
import type { Endpoint } from '../http/endpoint.js'
import { fieldError } from '../http/errors.js'
import type { Fields } from '../http/fields.js'
import { parseQuery } from '../http/query.js'
import { API } from './resource.js'
import { tagSets } from './tagSet.js'

// GET tagSet/{id}/evaluate/?against= (extension, docs/decisions.md §25): a readable tag set's tags (a detector's)
// scored against a readable gold tag set's, per class: precision, recall, F and average precision
// (README, "Evaluating a detector").

const evaluateQuery: Fields = {
  against: { type: 'integer', min: 1, required: true, description: 'the gold tag set: what people labelled' },
  iou: {
    type: 'float',
    min: 0,
    max: 1,
    description: `the least time intersection over union of a match, above 0 and at most 1 (default ${DEFAULT_IOU})`,
  },
  minimumStrength: {
    type: 'float',
    description:
      'precision, recall, F and the counts of the tags of at least this strength (default: every tag); average precision is over every tag',
  },
}

const scores = {
  gold: { type: 'integer' },
  detections: { type: 'integer' },
  tp: { type: 'integer' },
  fp: { type: 'integer' },
  fn: { type: 'integer' },
  precision: { type: ['number', 'null'] },
  recall: { type: ['number', 'null'] },
  fMeasure: { type: ['number', 'null'] },
  averagePrecision: { type: ['number', 'null'] },
}

export const evaluateEndpoint: Endpoint = {
  path: `${API}/tagSet/:id/evaluate/`,
  name: 'Tag Set Evaluation',
  description:
    "The tag set's tags (a detector's) scored against the gold tag set `against`, per class and pooled: a tag matches a " +
    'gold tag of its class on its media file when their time intersection over union is at least iou; tags are taken strongest ' +
    'first (ties by id), each matching the unmatched gold tag it overlaps most, so each gold tag is matched once. Only the media ' +
    'files the gold set has tags on are evaluated. Classes are matched by id, or by className when the sets are of different ' +
    'libraries. Counts, precision, recall and F are of the tags of at least minimumStrength (every tag without it); average ' +
    'precision is over every tag ranked strongest first: the sum, over each matching tag, of the precision of the tags up to it, ' +
    `divided by the number of gold tags. curve: precision and recall at each distinct strength, at most ${MAX_CURVE_POINTS} points.`,
  methods: {
    GET: async (ctx) => {
      const { row: tagSet } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
      const q = parseQuery(ctx, evaluateQuery) as { against: number; iou?: number; minimumStrength?: number }
      if (q.iou === 0) throw fieldError('iou', 'Ensure this value is greater than 0.')
      const { row: gold } = await ctx.services.records.fetch(ctx, tagSets, q.against, ['read'])
      const iou = q.iou ?? DEFAULT_IOU
      const classesMatchedBy = tagSet.library_id !== null && tagSet.library_id === gold.library_id ? 'id' : 'className'
      const result = await evaluateTagSet(ctx.db, {
        tagSet: tagSet.id,
        against: gold.id,
        iou,
        minimumStrength: q.minimumStrength,
        classesBy: classesMatchedBy,
      })
      return {
        body: {
          tagSet: tagSet.id,
          against: gold.id,
          iou,
          minimumStrength: q.minimumStrength ?? null,
          classesMatchedBy,
          ...result,
        },
      }
    },
  },
  doc: {
    keys: ['tagSet'],
    actions: { GET: 'evaluate' },
    list: false,
    filters: evaluateQuery,
    success: {
      GET: [
        {
          status: 200,
          description: 'The scores per class and pooled',
          body: {
            type: 'object',
            required: [
              'tagSet',
              'against',
              'iou',
              'minimumStrength',
              'classesMatchedBy',
              'mediaFiles',
              'classes',
              'overall',
            ],
            properties: {
              classesMatchedBy: { enum: ['id', 'className'] },
              classes: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['tagClass', 'className', ...Object.keys(scores), 'curve'],
                  properties: {
                    tagClass: { type: 'integer' },
                    className: { type: 'string' },
                    ...scores,
                    curve: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['threshold', 'precision', 'recall'],
                        properties: {
                          threshold: { type: ['number', 'null'] },
                          precision: { type: 'number' },
                          recall: { type: ['number', 'null'] },
                        },
                      },
                    },
                  },
                },
              },
              overall: {
                type: 'object',
                required: [...Object.keys(scores), 'meanAveragePrecision'],
                properties: { ...scores, meanAveragePrecision: { type: ['number', 'null'] } },
              },
            },
          },
        },
      ],
    },
  },
}

export const endpoints = () => [evaluateEndpoint]
