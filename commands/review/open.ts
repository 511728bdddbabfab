import { Flags } from '@oclif/core'
import open from 'open'
import { STRATEGIES, STRATEGY_HELP } from '../../server/analysis/reviewStrategies.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { findTagSet } from '../../src/lookup.js'
import { warn } from '../../src/output.js'

/** Can a browser be opened here? macOS and Windows, or a Linux/BSD session with a display. */
const onDesktop = () => process.platform === 'darwin' || process.platform === 'win32' || !!(process.env.DISPLAY || process.env.WAYLAND_DISPLAY)

export default class ReviewOpen extends AuthCommand<typeof ReviewOpen> {
  static summary = 'Open the review page of a tag set in your browser, logged in as you'
  static description = 'Prints the address of the review page with a one-time code (valid two minutes, used once) that the page exchanges for a browser session of your account, and opens it in your browser on a desktop. Your token never goes into the address.'
  static examples = ['<%= config.bin %> review open --tag-set 1', '<%= config.bin %> review open --tag-set 1 --no-browser',
    '<%= config.bin %> review open --tag-set 1 --strategy uncertain', '<%= config.bin %> review open --tag-set 1 --order uncertain']
  static flags = {
    'tag-set': Flags.string({ description: 'tag set to review (name or id)', required: true }),
    strategy: Flags.string({
      description: `the order the page shows the tags in (also --order): ${STRATEGIES.map((s, i) => `${s} (${i ? '' : 'default: '}${STRATEGY_HELP[s]})`).join('; ')}`,
      options: [...STRATEGIES],
      aliases: ['order'],
    }),
    browser: Flags.boolean({ description: 'open the page in a browser (on a desktop)', default: true, allowNo: true }),
  }

  async run(): Promise<{ url: string; expires: string }> {
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const { code, expires } = await this.api.post<{ code: string; expires: string }>('loginCode/', {})
    // the code in the fragment: browsers never send it to a server, nor into its logs
    const order = this.flags.strategy ? `&strategy=${this.flags.strategy}` : ''
    const url = `${this.api.server}/review/?tagSet=${tagSet.id}${order}#code=${code}`
    this.log(url)
    if (this.flags.browser && onDesktop()) await open(url).catch((err: Error) => warn(`could not open a browser (${err.message}): open the address above`))
    return { url, expires }
  }
}
