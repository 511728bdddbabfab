import { reviewQueue } from '../analysis/reviewQueue.js'
import { STRATEGIES, STRATEGY_HELP, type Strategy } from '../analysis/reviewStrategies.js'
import { reviewSummary } from '../analysis/reviews.js'
import type { Endpoint } from '../http/endpoint.js'
import { badRequest } from '../http/errors.js'
import { toJson, type Fields } from '../http/fields.js'
import { parseQuery } from '../http/query.js'
import { API } from './resource.js'
import { tags } from './tag.js'
import { tagSets } from './tagSet.js'

// GET tagSet/{id}/reviewQueue/ and tagSet/{id}/reviewSummary/ (extension, docs/decisions.md §19): what the caller
// should review next in a readable tag set, and what the decisions on its tags say (README, "Reviewing machine tags").

const MAX_QUEUE = 100

/** the order each strategy gives, the first the default */
const strategies = STRATEGIES.map((s, i) => `${s} (${i ? '' : 'default: '}${STRATEGY_HELP[s]})`).join(', ')

const queueQuery: Fields = {
  n: { type: 'integer', min: 1, max: MAX_QUEUE, description: 'how many tags (default 20)' },
  strategy: { type: 'choice', choices: STRATEGIES, description: `the order: ${strategies}` },
  order: { type: 'choice', choices: STRATEGIES, description: 'another name for strategy, with the same values' },
  overlap: { type: 'boolean', description: 'also tags other reviewers decided (yes, no or unsure)' },
  tagClass: { type: 'integer', min: 1 },
  mediaFile: { type: 'integer', min: 1 },
  minStrength: { type: 'float' },
  maxStrength: { type: 'float' },
}

const tagRecord = {
  type: 'object',
  required: ['id', 'tagSet', 'mediaFile', 'tagClass', 'startTime', 'endTime', 'strength'],
}

export const reviewQueueEndpoint: Endpoint = {
  path: `${API}/tagSet/:id/reviewQueue/`,
  name: 'Tag Set Review Queue',
  description:
    `The next tags of the tag set for the caller to review: n (1 to ${MAX_QUEUE}, default 20) tags the caller has not ` +
    `decided, by strategy (or order, its other name) ${strategies}; ` +
    'a strength that is not a number comes last in top and uncertain; overlap=true also gives tags other reviewers decided; ' +
    'filters tagClass, mediaFile, minStrength, maxStrength.',
  methods: {
    GET: async (ctx) => {
      const { row: tagSet } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
      const q = parseQuery(ctx, queueQuery) as {
        n?: number
        strategy?: Strategy
        order?: Strategy
        overlap?: boolean
        tagClass?: number
        mediaFile?: number
        minStrength?: number
        maxStrength?: number
      }
      if (q.strategy && q.order && q.strategy !== q.order) {
        throw badRequest({
          non_field_errors: [`Give strategy or order, not both: "${q.strategy}" and "${q.order}" differ.`],
        })
      }
      const strategy = q.strategy ?? q.order ?? 'strata'
      const rows = await reviewQueue(ctx.db, {
        tagSet: tagSet.id,
        reviewer: ctx.caller.id,
        n: q.n ?? 20,
        strategy,
        overlap: q.overlap ?? false,
        tagClass: q.tagClass,
        mediaFile: q.mediaFile,
        minStrength: q.minStrength,
        maxStrength: q.maxStrength,
      })
      return { body: { strategy, results: rows.map((r) => toJson(tags.compiled.fields, r)) } }
    },
  },
  doc: {
    keys: ['tagSet'],
    actions: { GET: 'reviewQueue' },
    list: false,
    filters: queueQuery,
    success: {
      GET: [
        {
          status: 200,
          description: 'The tags to review next',
          body: {
            type: 'object',
            required: ['strategy', 'results'],
            properties: { strategy: { enum: [...STRATEGIES] }, results: { type: 'array', items: tagRecord } },
          },
        },
      ],
    },
  },
}

export const reviewSummaryEndpoint: Endpoint = {
  path: `${API}/tagSet/:id/reviewSummary/`,
  name: 'Tag Set Review Summary',
  description:
    "What the decisions on the tag set's tags say, per class: counts of each decision and consensus, the share of yes " +
    "in each of ten strength bands with its Wilson 95% interval, the post-stratified precision above each band's lower " +
    'edge, the lowest thresholds with a precision of at least 0.9 and 0.95 and the tags they keep, and how often reviewers disagree.',
  methods: {
    GET: async (ctx) => {
      const { row: tagSet } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
      const classes = await reviewSummary(ctx.db, tagSet.id)
      const names = classes.length
        ? new Map(
            (
              await ctx.db
                .selectFrom('tag_classes')
                .select(['id', 'class_name'])
                .where(
                  'id',
                  'in',
                  classes.map((c) => c.tagClass),
                )
                .execute()
            ).map((c) => [c.id, c.class_name]),
          )
        : new Map<number, string>()
      const sum = (f: (c: (typeof classes)[number]) => number) => classes.reduce((s, c) => s + f(c), 0)
      const reviewedByMany = sum((c) => c.reviewedByMany)
      const disagreements = sum((c) => c.disagreements)
      return {
        body: {
          tagSet: tagSet.id,
          tags: sum((c) => c.tags),
          decidedTags: sum((c) => c.consensus.yes + c.consensus.no + c.consensus.unsure),
          reviewedByMany,
          disagreements,
          disagreementRate: reviewedByMany ? disagreements / reviewedByMany : null,
          classes: classes.map((c) => ({ className: names.get(c.tagClass) ?? '', ...c })),
        },
      }
    },
  },
  doc: {
    keys: ['tagSet'],
    actions: { GET: 'reviewSummary' },
    list: false,
    success: {
      GET: [
        {
          status: 200,
          description: 'The summary of the decisions',
          body: {
            type: 'object',
            required: ['tagSet', 'tags', 'classes'],
            properties: {
              classes: { type: 'array', items: { type: 'object', required: ['tagClass', 'bands', 'thresholds'] } },
            },
          },
        },
      ],
    },
  },
}

export const endpoints = () => [reviewQueueEndpoint, reviewSummaryEndpoint]
