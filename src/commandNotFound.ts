import { toConfiguredId } from '@oclif/core/util/ids'
import type { Hook, Interfaces } from '@oclif/core'
import suggestOnTerminal from '@oclif/plugin-not-found'
import { closest } from './closest.js'

// A mistyped command (docs/architecture.md, "The command line"). On a terminal, @oclif/plugin-not-found's
// own hook asks "Did you mean media import?" and runs it when confirmed. Anywhere else nobody can answer,
// and that hook says only where to look: here the closest command is named in one line instead. A command
// that asks before it acts (it has --yes: a delete, a revoke) is never offered to run from a guess, since the
// plugin's question defaults to yes: `mas tag get 41` must not lead to deleting tag 41; it is named in the
// same one line. Either way a command not run exits 127, as a shell does for a command it cannot find.

const hook: Hook.CommandNotFound = async function (opts) {
  const { config, id } = opts
  const closest = closestCommand(id, config)
  if (process.stdin.isTTY && !(closest && asksFirst(closest, config))) {
    // oclif took the words after the mistyped command as part of its id (`media imprt rec` is media:imprt:rec);
    // handed on as arguments, they reach the command run on "yes" (the plugin would pass only the flags)
    const words = closest ? id.split(':').slice(closest.split(':').length) : []
    return suggestOnTerminal.call(this, { ...opts, argv: [...words, ...(opts.argv ?? [])] })
  }
  const topic = id.split(':')[0]
  const help = `${config.bin} help${config.findTopic(topic) ? ` ${topic}` : ''}`
  const suggestion = closest ? ` Did you mean ${config.bin} ${toConfiguredId(closest, config)}?` : ''
  process.stderr.write(
    `Error: ${config.bin} ${toConfiguredId(id, config)} is not a ${config.bin} command.${suggestion} (${help} lists the commands)\n`,
  )
  this.exit(127)
}

/** Does the command ask before it acts (it takes --yes to act without asking)? */
const asksFirst = (id: string, config: Interfaces.Config): boolean => config.findCommand(id)?.flags.yes !== undefined

/** The visible command nearest to `id` by edit distance, as plugin-not-found picks it. */
function closestCommand(id: string, config: Interfaces.Config): string | undefined {
  const hidden = new Set(config.commands.filter((c) => c.hidden).map((c) => c.id))
  const ids = [...config.commandIDs, ...config.commands.flatMap((c) => c.aliases)].filter((c) => !hidden.has(c))
  return closest(id, ids)
}

export default hook
