// The parameters of each built-in job type, as data: what the server checks
// when a job is created or queued, what the worker fills in when a parameter
// with a default is not given, and what `mas job create --help`, the OpenAPI
// document and the README's job types table state. It imports nothing, so
// the CLI can read it without loading the job types' code.

/** integer/float/string: plain values; the rest name records or files the job reads or writes. */
export type ParamKind =
  'integer' | 'float' | 'string' | 'path' | 'library' | 'tagSet' | 'mediaFile' | 'tagClass' | 'model' | 'labels'

export interface ParamSpec {
  kind: ParamKind
  /** no sensible default: a job without it is refused (400 naming it) */
  required?: boolean
  min?: number
  max?: number
  /** used when the parameter is not given */
  default?: number
  /** given only with this other parameter: a job with this one alone is refused (400), or waits for the other */
  needs?: string
  description: string
}

export interface TypeParams {
  id: number
  name: string
  params: Record<string, ParamSpec>
  /** reads the media files of the job's project and/or `library` (within `folder`) unless its `mediaFileId` names
   * one: a job with neither a project nor one of those parameters waits for a project */
  projectMedia?: boolean
  /** created only by the server (a parent job's children), never by a client */
  childOnly?: boolean
}

/** The value of a parameter of each kind once checked (parameters.ts): a number or record id, a text, or for a tag
 * class its id or the name of a class to use. */
interface KindValue {
  integer: number
  float: number
  library: number
  tagSet: number
  mediaFile: number
  model: number
  string: string
  path: string
  labels: string
  tagClass: number | string
}

/** A job type's parameters as its run reads them: those required or with a default are always there (the worker
 * fills in defaults), the others when given. */
export type ParamsOf<T extends TypeParams> = {
  readonly [N in keyof T['params']]: T['params'][N] extends { required: true } | { default: number }
    ? KindValue[T['params'][N]['kind']]
    : KindValue[T['params'][N]['kind']] | undefined
}

/** A type of the original known by its id and name only: mas runs none of them (a job of one ends in Error). */
export interface NamedType {
  id: number
  name: string
}

export const TEST = {
  id: 8,
  name: 'Test',
  params: {
    numToComplete: { kind: 'integer', min: 0, max: 1_000_000, default: 10, description: 'steps to count' },
    secondsPerStep: { kind: 'float', min: 0, max: 3600, default: 0, description: 'wait between steps' },
    numChildren: {
      kind: 'integer',
      min: 0,
      max: 1000,
      default: 0,
      description: 'split the count over this many child Test jobs',
    },
  },
} as const satisfies TypeParams

export const IMPORT_AUDIO_FILE = {
  id: 9,
  name: 'ImportAudioFile',
  params: {
    path: {
      kind: 'path',
      required: true,
      description: "file or folder below the server's import folder (MAS_IMPORT_ROOT)",
    },
    library: { kind: 'library', required: true, description: 'library to import into' },
  },
} as const satisfies TypeParams

/** Where a job that reads media searches besides (or instead of) its project: every type that reads media takes these. */
const mediaSearch = {
  library: {
    kind: 'library',
    description:
      "search every media file of this library the job's creator may read (with a project: only the project's files in it)",
  },
  folder: {
    kind: 'string',
    needs: 'library',
    description: "only the library's media files whose alias starts with this, e.g. site-A/2024/",
  },
} as const satisfies Record<string, ParamSpec>

const ONE_FILE = 'one media file (default: every media file of the project and/or library)'

export const RANDOM_WINDOW_TAGGING = {
  id: 2,
  name: 'RandomWindowTagging',
  params: {
    destinationTagSet: { kind: 'tagSet', required: true, description: 'tag set the windows are written to' },
    numWindowsToTag: { kind: 'integer', min: 1, max: 1_000_000, default: 10, description: 'windows to tag' },
    windowSizeInSeconds: { kind: 'float', min: 0.001, max: 86_400, default: 1, description: 'length of each window' },
    mediaFileId: { kind: 'mediaFile', description: ONE_FILE },
    ...mediaSearch,
    tagClass: { kind: 'tagClass', description: 'tag class id or name (default: a class named randomWindow)' },
    seed: { kind: 'integer', min: 0, description: 'random seed (default: chosen and kept as a parameter)' },
  },
  projectMedia: true,
} as const satisfies TypeParams

const discovery = {
  sourceTagSet: { kind: 'tagSet', required: true, description: 'tag set whose tags are the examples' },
  destinationTagSet: { kind: 'tagSet', required: true, description: 'tag set the found tags are written to' },
  numberOfTagsToDiscover: {
    kind: 'integer',
    min: 1,
    max: 100_000,
    default: 10,
    description: 'the most tags to write in each media file',
  },
  windowSizeInSeconds: {
    kind: 'float',
    min: 0.001,
    max: 3600,
    default: 1,
    description: 'length of each window compared',
  },
  mediaFileId: { kind: 'mediaFile', description: ONE_FILE },
  ...mediaSearch,
  weight: { kind: 'float', min: 0, max: 1e6, default: 1, description: 'factor on the strength of found tags' },
  minimumStrength: {
    kind: 'float',
    min: 0,
    max: 1,
    default: 0.5,
    description:
      'windows scored below this probability of being a call are not tagged (so a file without a call gets no tag)',
  },
  learnFromReviews: {
    kind: 'integer',
    min: 0,
    max: 1,
    default: 1,
    description:
      "learn from reviewers' decisions on the destination tag set's tags (yes: examples; no: counter-examples, or examples of the class named), keep the decided tags and replace the undecided machine tags (1), or not (0)",
  },
} as const satisfies Record<string, ParamSpec>

export const SUPERVISED_TAG_DISCOVERY = {
  id: 1,
  name: 'SupervisedTagDiscovery',
  params: discovery,
  projectMedia: true,
} as const satisfies TypeParams

export const SUPERVISED_TAG_DISCOVERY_CHILD = {
  id: 11,
  name: 'SupervisedTagDiscoveryChild',
  params: { ...discovery, mediaFileId: { kind: 'mediaFile', required: true, description: 'the media file to search' } },
  childOnly: true,
} as const satisfies TypeParams

export const UNSUPERVISED_TAG_DISCOVERY = {
  id: 7,
  name: 'UnsupervisedTagDiscovery',
  params: {
    destinationTagSet: { kind: 'tagSet', required: true, description: 'tag set the clustered windows are written to' },
    numberOfTagsToDiscover: {
      kind: 'integer',
      min: 1,
      max: 100,
      default: 10,
      description: 'clusters to sort the windows into',
    },
    windowSizeInSeconds: { kind: 'float', min: 0.001, max: 3600, default: 1, description: 'length of each window' },
    mediaFileId: { kind: 'mediaFile', description: ONE_FILE },
    ...mediaSearch,
    seed: { kind: 'integer', min: 0, description: 'random seed (default: a new one)' },
  },
  projectMedia: true,
} as const satisfies TypeParams

export const MODEL_INFERENCE = {
  id: 12,
  name: 'ModelInference',
  params: {
    model: { kind: 'model', required: true, description: 'the ONNX model to run (its id or name; mas model list)' },
    destinationTagSet: { kind: 'tagSet', required: true, description: 'tag set the detections are written to' },
    mediaFileId: { kind: 'mediaFile', description: ONE_FILE },
    ...mediaSearch,
    hopInSeconds: {
      kind: 'float',
      min: 0.001,
      max: 3600,
      description: "seconds from one window's start to the next (default: the model's window, no overlap)",
    },
    minimumStrength: {
      kind: 'float',
      min: -1e9,
      max: 1e9,
      default: 0.5,
      description: "the least score written as a tag, for classes without a threshold of the model's",
    },
    species: {
      kind: 'labels',
      description:
        "only these of the model's labels (the species of a place and season): separated by ;, or the name of a text file of them, one a line, uploaded as a result file of one of your jobs (mas job result upload)",
    },
    createClasses: {
      kind: 'integer',
      min: 0,
      max: 1,
      default: 0,
      description:
        '1: create a tag class for each label detected that the library lacks; 0: such detections are counted in the result, not written',
    },
    keepEmbeddings: {
      kind: 'integer',
      min: 0,
      max: 1,
      default: 0,
      description:
        "1: store each window's embedding (the model's embedding output) for search by example, as EmbedAudio with this model does",
    },
  },
  projectMedia: true,
} as const satisfies TypeParams

export const SPEECH_DETECTION = {
  id: 13,
  name: 'SpeechDetection',
  params: {
    destinationTagSet: {
      kind: 'tagSet',
      required: true,
      description: 'tag set the spans of speech are written to, as machine tags of the class speech',
    },
    mediaFileId: { kind: 'mediaFile', description: ONE_FILE },
    ...mediaSearch,
    unscannedOnly: {
      kind: 'integer',
      min: 0,
      max: 1,
      default: 0,
      description:
        "1: only the files no SpeechDetection job has listened to yet (as the scans a library's speech policy queues)",
    },
  },
  projectMedia: true,
} as const satisfies TypeParams

/** the class SpeechDetection tags speech with, and whose machine tags a library's speech policy silences */
export const SPEECH_CLASS = 'speech'

export const EMBED_AUDIO = {
  id: 14,
  name: 'EmbedAudio',
  params: {
    model: {
      kind: 'model',
      description:
        'the ONNX model whose embedding output is stored (its id or name; default: the built-in embedding of discovery)',
    },
    windowSizeInSeconds: {
      kind: 'float',
      min: 0.001,
      max: 3600,
      default: 1,
      description: "length of each window of the built-in embedding (a model's window is its own)",
    },
    hopInSeconds: {
      kind: 'float',
      min: 0.001,
      max: 3600,
      description:
        "seconds from one window's start to the next (default: half the built-in window; a model's whole window)",
    },
    mediaFileId: { kind: 'mediaFile', description: ONE_FILE },
    ...mediaSearch,
  },
  projectMedia: true,
} as const satisfies TypeParams

export const TRAIN_CLASSIFIER = {
  id: 15,
  name: 'TrainClassifier',
  params: {
    sourceTagSet: {
      kind: 'tagSet',
      required: true,
      description: 'tag set whose decided tags (tagReview yes/no) teach the classifier',
    },
    destinationTagSet: {
      kind: 'tagSet',
      required: true,
      description: 'tag set the strongest windows are written to, as machine tags',
    },
    kind: {
      kind: 'string',
      description: "the stored embeddings to learn from and score: builtin (default) or a model's name or id",
    },
    numberOfTagsToWrite: { kind: 'integer', min: 1, max: 100_000, default: 100, description: 'the most tags to write' },
    minimumStrength: {
      kind: 'float',
      min: 0,
      max: 1,
      default: 0.5,
      description: 'windows scored below this probability are not tagged',
    },
    seed: {
      kind: 'integer',
      min: 0,
      description: 'random seed of the weak negatives (default: chosen and kept in the provenance)',
    },
  },
} as const satisfies TypeParams

/** Every type a worker runs, each declared once above: the runners (types/index.ts) are found by these names. */
export const RUNNABLE_TYPES = {
  Test: TEST,
  ImportAudioFile: IMPORT_AUDIO_FILE,
  RandomWindowTagging: RANDOM_WINDOW_TAGGING,
  SupervisedTagDiscovery: SUPERVISED_TAG_DISCOVERY,
  SupervisedTagDiscoveryChild: SUPERVISED_TAG_DISCOVERY_CHILD,
  UnsupervisedTagDiscovery: UNSUPERVISED_TAG_DISCOVERY,
  ModelInference: MODEL_INFERENCE,
  SpeechDetection: SPEECH_DETECTION,
  EmbedAudio: EMBED_AUDIO,
  TrainClassifier: TRAIN_CLASSIFIER,
} as const satisfies Record<string, TypeParams>

export type RunnableTypeName = keyof typeof RUNNABLE_TYPES

export const RUNNABLE_TYPE_PARAMS: readonly TypeParams[] = Object.values(RUNNABLE_TYPES)

/** The types a client may create, in the order of the README's job types table. */
export const JOB_TYPE_PARAMS: readonly TypeParams[] = RUNNABLE_TYPE_PARAMS.filter((t) => !t.childOnly)

/** The original's types that mas does not run, kept so that its jobs of them still name their type. */
export const NAMED_ONLY_TYPES: readonly NamedType[] = [
  { id: 3, name: 'TagAnalysis' },
  { id: 4, name: 'AdaptAnalysis' },
  { id: 5, name: 'Transcription' },
  { id: 6, name: 'UnknownTagDiscovery' },
  { id: 10, name: 'SupervisedTagDiscoveryParent' },
]

/** Every type, by id: what the job_types lookup rows must hold (checked at start-up, jobTypeRows.ts). */
export const ALL_JOB_TYPES: readonly NamedType[] = [...RUNNABLE_TYPE_PARAMS, ...NAMED_ONLY_TYPES]
  .map(({ id, name }) => ({ id, name }))
  .sort((a, b) => a.id - b.id)

/** One line per parameter: `name (kind, default D | required): description`. */
export function describeParams(t: TypeParams): string[] {
  return Object.entries(t.params).map(([name, p]) => {
    const range = p.min !== undefined || p.max !== undefined ? ` ${p.min ?? ''}..${p.max ?? ''}` : ''
    const how =
      (p.required ? 'required' : p.default !== undefined ? `default ${p.default}` : 'optional') +
      (p.needs ? `, with ${p.needs}` : '')
    return `${name} (${p.kind}${range}, ${how}): ${p.description}`
  })
}
