import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import FormData from 'form-data'
import { ApiError } from '../../src/api.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure } from '../../src/exits.js'

export default class ModelAdd extends AuthCommand<typeof ModelAdd> {
  static summary = 'Add an ONNX model for ModelInference jobs (site admins); prints its id'
  static description =
    'Uploads the model file with its manifest, a JSON file saying how to run it: sampleRate, windowSeconds, input {name, layout},' +
    ' outputs {scores, embedding} by tensor name, labels, thresholds and version (README, "Models"). --labels reads the labels from a text file,' +
    ' one a line, as BirdNET and Perch ship them. The server loads the model and runs one window before it keeps it: a model that does not' +
    ' match its manifest is refused with the reason.'

  static examples = [
    '<%= config.bin %> model add BirdNET_GLOBAL_6K_V2.4.onnx --manifest birdnet.json --labels BirdNET_GLOBAL_6K_V2.4_Labels.txt',
    '<%= config.bin %> model add perch_v2.onnx --manifest perch.json --name perch',
  ]

  static args = { file: Args.string({ description: 'the ONNX model file', required: true }) }
  static flags = {
    manifest: Flags.string({ char: 'm', description: 'the manifest, a JSON file', required: true }),
    labels: Flags.string({
      description: "a text file of the class labels, one a line (in place of the manifest's labels)",
    }),
    name: Flags.string({
      description: 'the name users and jobs give the model by [default: the file name without .onnx]',
    }),
  }

  async run() {
    const { file } = this.args
    const size = await stat(file).then(
      (s) => s.size,
      () => failure(`${file}: no such file`),
    )
    const manifest = await this.manifest()
    const name = this.flags.name ?? basename(file).replace(/\.onnx$/i, '')
    const answer = await this.api.upload('model/', async () => {
      const form = new FormData()
      form.append('name', name)
      form.append('manifest', JSON.stringify(manifest))
      form.append('file', await readFile(file), { filename: basename(file), knownLength: size })
      return form
    })
    if (answer.status !== 201) throw new ApiError(answer.status, answer.data, 'POST', this.api.url('model/'))
    this.log(String(answer.data.id))
    return answer.data
  }

  /** The manifest file's JSON, with the labels of --labels in place of its own. */
  private async manifest(): Promise<Record<string, unknown>> {
    const path = this.flags.manifest
    const text = await readFile(path, 'utf8').catch(() => failure(`--manifest: ${path}: no such file`))
    let manifest: unknown
    try {
      manifest = JSON.parse(text)
    } catch (e) {
      failure(`--manifest: ${path} is not JSON (${(e as Error).message})`)
    }
    if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest))
      failure(`--manifest: ${path} must hold a JSON object`)
    if (this.flags.labels === undefined) return manifest as Record<string, unknown>
    const labels = await readFile(this.flags.labels, 'utf8').catch(() =>
      failure(`--labels: ${this.flags.labels}: no such file`),
    )
    return {
      ...(manifest as Record<string, unknown>),
      labels: labels
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== ''),
    }
  }
}
