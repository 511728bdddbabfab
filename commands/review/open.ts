import { Flags } from '@oclif/core'
import { STRATEGIES, STRATEGY_HELP } from '../../server/analysis/reviewStrategies.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { openBrowser } from '../../src/browser.js'
import { findTagSet } from '../../src/lookup.js'
import { warn } from '../../src/output.js'

export default class ReviewOpen extends AuthCommand<typeof ReviewOpen> {
  static summary = 'Open the review page of a tag set in your browser, logged in as you'
  static description =
    'Prints the address of the review page with a one-time code (valid two minutes, used once) that the page exchanges for a browser session of your account, and opens it in your default browser (open on macOS, start on Windows, xdg-open elsewhere); where none can be opened (no display, no opener) it says so in one line. Your token never goes into the address.'
  static examples = [
    '<%= config.bin %> review open --tag-set 1',
    '<%= config.bin %> review open --tag-set 1 --no-browser',
    '<%= config.bin %> review open --tag-set 1 --strategy uncertain',
    '<%= config.bin %> review open --tag-set 1 --order uncertain',
  ]
  static flags = {
    'tag-set': Flags.string({ description: 'tag set to review (name or id)', required: true }),
    strategy: Flags.string({
      description: `the order the page shows the tags in (also --order): ${STRATEGIES.map((s, i) => `${s} (${i ? '' : 'default: '}${STRATEGY_HELP[s]})`).join('; ')}`,
      options: [...STRATEGIES],
      aliases: ['order'],
    }),
    browser: Flags.boolean({
      description: 'open the page in your default browser (--no-browser: only print the address)',
      default: true,
      allowNo: true,
    }),
  }

  async run(): Promise<{ url: string; expires: string }> {
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    const { code, expires } = await this.api.post<{ code: string; expires: string }>('loginCode/', {})
    // the code in the fragment: browsers never send it to a server, nor into its logs
    const order = this.flags.strategy ? `&strategy=${this.flags.strategy}` : ''
    const url = `${this.api.server}/review/?tagSet=${tagSet.id}${order}#code=${code}`
    this.log(url)
    if (this.flags.browser) {
      const cannot = (why: string) => warn(`no browser was opened: ${why}; open the address above`)
      const why = await openBrowser(url, cannot)
      if (why) cannot(why)
    }
    return { url, expires }
  }
}
