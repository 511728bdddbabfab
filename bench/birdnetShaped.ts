import onnxProto from 'onnx-proto'
import { seededRandom } from '../server/analysis/random.js'

// A model of BirdNET v2.4's shape and cost, with random weights, for `npm run bench:models`: windows of 3 s at
// 48 kHz (144,000 samples, [batch, samples]) through a learned filter bank (a strided 1-D convolution, squared and
// logged: a spectrogram of 96 bands), four 3×3 convolutions with ReLU, global average pooling, a 1,024-wide
// embedding and 6,522 sigmoid class scores, as BirdNET's output. Its multiply-adds are counted from the graph as
// it is built (each Conv's and Gemm's output size times its kernel), about 0.41 G per window.
// Only a few classes can fire (the others' biases are far below zero), so a run writes a realistic number of tags.

const { onnx } = onnxProto
const FLOAT = 1

export const BIRDNET_RATE = 48_000
export const BIRDNET_WINDOW_SECONDS = 3
export const BIRDNET_CLASSES = 6_522
/** classes whose scores can reach 0.5 */
const LIVE_CLASSES = 12

export interface GeneratedModel {
  bytes: Uint8Array
  multiplyAdds: number
  labels: string[]
}

const dim = (d: number | string) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })
const tensorInfo = (name: string, dims: Array<number | string>) =>
  onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map(dim) } } } })
const ints = (name: string, values: number[]) =>
  onnx.AttributeProto.create({ name, ints: values, type: onnx.AttributeProto.AttributeType.INTS })
const int = (name: string, value: number) =>
  onnx.AttributeProto.create({ name, i: value, type: onnx.AttributeProto.AttributeType.INT })
const tensor = (name: string, dims: number[], values: Float32Array) =>
  onnx.TensorProto.create({
    name,
    dims,
    dataType: FLOAT,
    rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
  })
const int64s = (name: string, values: number[]) =>
  onnx.TensorProto.create({
    name,
    dims: [values.length],
    dataType: 7,
    rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer),
  })

export function birdnetShapedModel(seed = 24): GeneratedModel {
  const random = seededRandom(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const he = (n: number, fanIn: number) => Float32Array.from({ length: n }, () => normal() * Math.sqrt(2 / fanIn))
  const samples = BIRDNET_RATE * BIRDNET_WINDOW_SECONDS
  const node: ReturnType<typeof onnx.NodeProto.create>[] = []
  const initializer: ReturnType<typeof onnx.TensorProto.create>[] = []
  let multiplyAdds = 0
  let at = 'audio'
  let step = 0
  const next = (opType: string, inputs: string[], attribute: ReturnType<typeof ints>[] = []) => {
    const out = `t${step++}`
    node.push(onnx.NodeProto.create({ opType, input: [at, ...inputs], output: [out], attribute }))
    at = out
  }
  const weights = (name: string, dims: number[], values: Float32Array) => {
    initializer.push(tensor(name, dims, values))
    return name
  }

  // the filter bank: 96 filters of 1,024 samples every 300 samples (477 frames), power in decibel-like units
  const bands = 96,
    kernel = 1024,
    hop = 300
  const frames = Math.floor((samples - kernel) / hop) + 1
  initializer.push(int64s('as_signal', [-1, 1, samples]))
  next('Reshape', ['as_signal'])
  next('Conv', [weights('bank', [bands, 1, kernel], he(bands * kernel, kernel))], [ints('strides', [hop])])
  multiplyAdds += frames * bands * kernel
  const t = at
  node.push(onnx.NodeProto.create({ opType: 'Mul', input: [t, t], output: [`t${step}`] }))
  at = `t${step++}`
  next('Add', [weights('floor', [1], Float32Array.of(1e-6))])
  next('Log', [])
  initializer.push(int64s('as_image', [-1, 1, bands, frames]))
  next('Reshape', ['as_image'])

  // four 3×3 convolutions with ReLU (padding 1): strides 2, 1, 2, 2
  let [channels, height, width] = [1, bands, frames]
  for (const [i, [out, stride]] of [
    [32, 2],
    [48, 1],
    [96, 2],
    [128, 2],
  ].entries()) {
    const fanIn = channels * 9
    next(
      'Conv',
      [
        weights(`conv${i}`, [out, channels, 3, 3], he(out * fanIn, fanIn)),
        weights(`conv${i}_b`, [out], new Float32Array(out)),
      ],
      [ints('kernel_shape', [3, 3]), ints('pads', [1, 1, 1, 1]), ints('strides', [stride, stride])],
    )
    height = Math.floor((height - 1) / stride) + 1
    width = Math.floor((width - 1) / stride) + 1
    multiplyAdds += height * width * out * fanIn
    channels = out
    next('Relu', [])
  }
  next('GlobalAveragePool', [])
  next('Flatten', [], [int('axis', 1)])

  const embeddingSize = 1024
  next('Gemm', [
    weights('embed', [channels, embeddingSize], he(channels * embeddingSize, channels)),
    weights('embed_b', [embeddingSize], new Float32Array(embeddingSize)),
  ])
  multiplyAdds += channels * embeddingSize
  next('Relu', [])
  const embedding = at
  const classWeights = Float32Array.from(
    { length: embeddingSize * BIRDNET_CLASSES },
    () => normal() / Math.sqrt(embeddingSize),
  )
  const classBias = Float32Array.from({ length: BIRDNET_CLASSES }, (_, c) => (c < LIVE_CLASSES ? 0 : -40))
  next('Gemm', [
    weights('classes', [embeddingSize, BIRDNET_CLASSES], classWeights),
    weights('classes_b', [BIRDNET_CLASSES], classBias),
  ])
  multiplyAdds += embeddingSize * BIRDNET_CLASSES
  next('Sigmoid', [])
  node.push(onnx.NodeProto.create({ opType: 'Identity', input: [at], output: ['scores'] }))
  node.push(onnx.NodeProto.create({ opType: 'Identity', input: [embedding], output: ['embedding'] }))

  const graph = onnx.GraphProto.create({
    name: 'birdnet-shaped',
    node,
    initializer,
    input: [tensorInfo('audio', ['batch', samples])],
    output: [tensorInfo('scores', ['batch', BIRDNET_CLASSES]), tensorInfo('embedding', ['batch', embeddingSize])],
  })
  const bytes = onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 13 }],
      producerName: 'mas bench',
      graph,
    }),
  ).finish()
  const labels = Array.from({ length: BIRDNET_CLASSES }, (_, c) => `Genus species${c}_Bird ${c}`)
  return { bytes, multiplyAdds, labels }
}
