import { Flags } from '@oclif/core'
import { AuthCommand, usageError } from '../../src/base-command.js'

export default class TagCreate extends AuthCommand<typeof TagCreate> {
  static summary = 'Create one tag; prints its id'
  static examples = [
    '<%= config.bin %> tag create --tag-set 1 --media-file 1 --tag-class 1 --start 1.5 --end 2.0 --min-freq 2000 --max-freq 8000',
    '<%= config.bin %> tag create --tag-set 1 --media-file 1 --tag-class 1 --start 0 --end 0.4 --strength 0.9 --json',
  ]

  static flags = {
    'tag-set': Flags.integer({ description: 'tag set id', required: true, min: 1 }),
    'media-file': Flags.integer({ description: 'media file id', required: true, min: 1 }),
    'tag-class': Flags.integer({ description: 'tag class id', required: true, min: 1 }),
    start: Flags.string({ description: 'start time in seconds', required: true }),
    end: Flags.string({ description: 'end time in seconds', required: true }),
    'min-freq': Flags.string({ description: 'lowest frequency in Hz', default: '0' }),
    'max-freq': Flags.string({ description: 'highest frequency in Hz', default: '0' }),
    strength: Flags.string({ description: 'strength (e.g. a detector score)' }),
  }

  async run() {
    const f = this.flags
    const tag = await this.api.post('tag/', {
      tagSet: f['tag-set'], mediaFile: f['media-file'], tagClass: f['tag-class'],
      startTime: num('start', f.start), endTime: num('end', f.end),
      minFrequency: num('min-freq', f['min-freq']), maxFrequency: num('max-freq', f['max-freq']),
      ...(f.strength !== undefined ? { strength: num('strength', f.strength) } : {}),
    })
    this.log(String(tag.id))
    return tag
  }
}

function num(flag: string, value: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n)) usageError(`--${flag} must be a number, not "${value}"`)
  return n
}
