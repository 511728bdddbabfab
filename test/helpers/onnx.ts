import onnxProto from 'onnx-proto'

// Tiny ONNX models written by the tests (the ONNX protobuf, through onnx-proto), so that what a model detects is
// known in advance: no model file is downloaded or kept in the repository.

const { onnx } = onnxProto
const FLOAT = 1

const dim = (d: number | string) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })
const tensorInfo = (name: string, dims: Array<number | string>) =>
  onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map(dim) } } } })
const ints = (name: string, values: number[]) =>
  onnx.AttributeProto.create({ name, ints: values, type: onnx.AttributeProto.AttributeType.INTS })
const int = (name: string, value: number) =>
  onnx.AttributeProto.create({ name, i: value, type: onnx.AttributeProto.AttributeType.INT })
const floats = (name: string, dims: number[], values: number[]) =>
  onnx.TensorProto.create({ name, dims, dataType: FLOAT, floatData: values })

/** A model of windows of `samples` samples ([batch, samples]) whose output `scores` is, per window, the mean
 * energy of its first half and of its second half (two "classes"), and `embedding` (when asked) the mean energy
 * of each quarter. */
export function energyModel(samples: number, o: { input?: string; embedding?: boolean } = {}): Uint8Array {
  const input = o.input ?? 'audio'
  const halves = Array.from({ length: samples * 2 }, (_, k) => {
    const [i, j] = [Math.floor(k / 2), k % 2]
    return i < samples / 2 === (j === 0) ? 2 / samples : 0
  })
  const quarters = Array.from({ length: samples * 4 }, (_, k) =>
    Math.floor(Math.floor(k / 4) / (samples / 4)) === k % 4 ? 4 / samples : 0,
  )
  const node = [
    onnx.NodeProto.create({ opType: 'Mul', input: [input, input], output: ['squared'] }),
    onnx.NodeProto.create({ opType: 'MatMul', input: ['squared', 'halves'], output: ['scores'] }),
    ...(o.embedding
      ? [onnx.NodeProto.create({ opType: 'MatMul', input: ['squared', 'quarters'], output: ['embedding'] })]
      : []),
  ]
  const graph = onnx.GraphProto.create({
    name: 'energy',
    node,
    initializer: [
      floats('halves', [samples, 2], halves),
      ...(o.embedding ? [floats('quarters', [samples, 4], quarters)] : []),
    ],
    input: [tensorInfo(input, ['batch', samples])],
    output: [tensorInfo('scores', ['batch', 2]), ...(o.embedding ? [tensorInfo('embedding', ['batch', 4])] : [])],
  })
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 13 }],
      producerName: 'mas tests',
      graph,
    }),
  ).finish()
}

/** The mean of a [batch, samples] input's squares, per window: one score. */
export function meanEnergyModel(samples: number): Uint8Array {
  const graph = onnx.GraphProto.create({
    name: 'mean energy',
    node: [
      onnx.NodeProto.create({ opType: 'Mul', input: ['audio', 'audio'], output: ['squared'] }),
      onnx.NodeProto.create({
        opType: 'ReduceMean',
        input: ['squared'],
        output: ['scores'],
        attribute: [ints('axes', [1]), int('keepdims', 1)],
      }),
    ],
    input: [tensorInfo('audio', ['batch', samples])],
    output: [tensorInfo('scores', ['batch', 1])],
  })
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 13 }],
      producerName: 'mas tests',
      graph,
    }),
  ).finish()
}
