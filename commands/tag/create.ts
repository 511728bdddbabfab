import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { usageError } from '../../src/exits.js'
import { findTagSet, libraryOf, mediaFileId, tagClassId } from '../../src/lookup.js'
import { parseRef } from '../../src/refs.js'

export default class TagCreate extends AuthCommand<typeof TagCreate> {
  static summary = 'Create one tag; prints its id'
  static examples = [
    '<%= config.bin %> tag create --tag-set 1 --media-file 1 --tag-class 1 --start 1.5 --end 2.0 --min-freq 2000 --max-freq 8000',
    '<%= config.bin %> tag create --tag-set 1 --media-file 1 --tag-class 1 --start 0 --end 0.4 --strength 0.9 --json',
  ]

  // a loop of tag creates asks the server for each name once (docs/decisions.md, "Fast per command")
  static remembersNames = true

  static flags = {
    'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }),
    'media-file': Flags.string({
      description: 'media file: alias, file name (when unique in the library) or id',
      required: true,
    }),
    'tag-class': Flags.string({ description: "tag class: name in the tag set's library, or id", required: true }),
    start: Flags.string({ description: 'start time in seconds', required: true }),
    end: Flags.string({ description: 'end time in seconds', required: true }),
    'min-freq': Flags.string({ description: 'lowest frequency in Hz', default: '0' }),
    'max-freq': Flags.string({ description: 'highest frequency in Hz', default: '0' }),
    strength: Flags.string({ description: 'strength (e.g. a detector score)' }),
  }

  async run() {
    return this.withRememberedNames(() => this.create())
  }

  private async create() {
    const f = this.flags
    const tagSet = await findTagSet(this.api, '--tag-set', f['tag-set'])
    // names are looked up in the tag set's library; ids are sent as given
    const library = (value: string) => ('name' in parseRef(value) ? libraryOf(tagSet, '--tag-set') : undefined)
    const [mediaFile, tagClass] = await Promise.all([
      mediaFileId(this.api, '--media-file', f['media-file'], library(f['media-file'])),
      tagClassId(this.api, '--tag-class', f['tag-class'], library(f['tag-class'])),
    ])
    const tag = await this.api.post('tag/', {
      tagSet: tagSet.id,
      mediaFile,
      tagClass,
      startTime: num('start', f.start),
      endTime: num('end', f.end),
      minFrequency: num('min-freq', f['min-freq']),
      maxFrequency: num('max-freq', f['max-freq']),
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
