import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { cliWorld, type CliWorld } from './cli.js'

// What a person at a terminal meets: help by topic, did-you-mean for a typo, shell completion.

let w: CliWorld
let admin: TestUser

test.before(async () => {
  w = await cliWorld()
  admin = await w.t.user('root', { admin: true })
  await w.login(admin)
})
test.after(async () => {
  await w.close()
})

test("mas help TOPIC COMMAND shows that command's help; mas help TOPIC lists its commands", async () => {
  const command = await w.mas(['help', 'media', 'import'], { env: { NO_COLOR: '1' } })
  assert.is(command.code, 0, command.stderr)
  assert.match(command.stdout, /USAGE\n {2}\$ mas media import PATH/, command.stdout)
  assert.match(command.stdout, /EXAMPLES\n/)
  const topic = await w.mas(['help', 'media'], { env: { NO_COLOR: '1' } })
  assert.is(topic.code, 0, topic.stderr)
  assert.match(topic.stdout, /\n {2}media import +Import audio files/)
})

test('a mistyped command on a terminal asks "Did you mean ...?" and runs that command when confirmed', async () => {
  const typo = await w.tty(['media', 'imprt', 'x'])
  try {
    const screen = await typo.waitFor(/Did you mean media import\?/)
    assert.match(screen, /media imprt x is not a mas command/)
    await typo.keys('n', 'Enter')
    await typo.waitFor(/Run mas help media for a list of available commands/)
    assert.is(await typo.exited(), 127)
  } finally {
    await typo.close()
  }
  const library = await w.mas(['library', 'create', 'Dawn chorus'])
  const confirmed = await w.tty(['library', 'lst'])
  try {
    await confirmed.waitFor(/Did you mean library list\?/)
    await confirmed.keys('y', 'Enter')
    await confirmed.waitFor(new RegExp(`ID +NAME[^\\n]*\\n${library.stdout.trim()} +Dawn chorus`))
    assert.is(await confirmed.exited(), 0)
  } finally {
    await confirmed.close()
  }
  // the words after the mistyped command reach the command run on "yes"
  const withArgs = await w.tty(['media', 'imprt', 'no-such-folder', '--library', library.stdout.trim()])
  try {
    await withArgs.waitFor(/Did you mean media import\?/)
    await withArgs.keys('y', 'Enter')
    const screen = await withArgs.waitFor(/\[exit \d+\]/)
    assert.match(screen, /failed no-such-folder: no such file or folder\n\[exit 1\]/)
  } finally {
    await withArgs.close()
  }
  // a command that asks before it acts is named, never offered to run: the question defaults to yes
  const destructive = await w.tty(['tag', 'get', '41'])
  try {
    const screen = await destructive.waitFor(/\[exit \d+\]/)
    assert.match(
      screen,
      /Error: mas tag get 41 is not a mas command\. Did you mean mas tag delete\? \(mas help tag lists the commands\)/,
    )
    assert.not.match(screen, /\(Y\/n\)|delete tag/)
    assert.is(await destructive.exited(), 127)
  } finally {
    await destructive.close()
  }
  // on a pipe nobody can answer: one line naming the closest command and where to look, exit 127 (command not found)
  const piped = await w.mas(['media', 'imprt', 'x'], { env: { NO_COLOR: '1' } })
  assert.is(piped.code, 127)
  assert.is(piped.stdout, '')
  assert.is(
    piped.stderr,
    'Error: mas media imprt x is not a mas command. Did you mean mas media import? (mas help media lists the commands)\n',
  )
  const noTopic = await w.mas(['lbrary', 'list'])
  assert.is(noTopic.code, 127)
  assert.is(
    noTopic.stderr,
    'Error: mas lbrary list is not a mas command. Did you mean mas library list? (mas help lists the commands)\n',
  )
})

test('completion scripts for bash and zsh are generated and complete the commands', async () => {
  const bash = await w.mas(['autocomplete', 'script', 'bash'])
  assert.is(bash.code, 0, bash.stderr)
  assert.match(bash.stdout, /MAS_AC_BASH_SETUP_PATH=.*bash_setup/)
  const zsh = await w.mas(['autocomplete', 'script', 'zsh'])
  assert.is(zsh.code, 0, zsh.stderr)
  assert.match(zsh.stdout, /MAS_AC_ZSH_SETUP_PATH=.*zsh_setup/)
  const setup = await w.mas(['autocomplete', 'bash'])
  assert.is(setup.code, 0, setup.stderr)
  assert.match(setup.stdout, /mas autocomplete script bash/)
  assert.is((await w.mas(['autocomplete', 'zsh'])).code, 0)
  // bash, loading what the README's line adds to ~/.bashrc, completes a command and a flag
  const complete = (words: string[]) =>
    `COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _mas_autocomplete; echo "\${COMPREPLY[*]}"`
  const { stdout } = await promisify(execFile)('bash', [
    '--norc',
    '-c',
    [
      `source ${join(w.home, 'cache', 'mas', 'autocomplete', 'bash_setup')}`,
      'complete -p mas',
      complete(['mas', 'media', 'imp']),
      complete(['mas', 'media', 'import', '--rec']),
    ].join('\n'),
  ])
  assert.equal(stdout.split('\n'), ['complete -F _mas_autocomplete mas', 'import', '--recursive', ''])
})

test('mas login on a terminal with no server anywhere asks for it, and checks it answers before the password', async () => {
  const home = w.newHome()
  const unreachable = await w.tty(['login', '--profile', 'new'], { home })
  try {
    await unreachable.waitFor(/Server: \(http:\/\/127\.0\.0\.1:8000\)/)
    await unreachable.keys('-l', 'http://127.0.0.1:9')
    await unreachable.keys('Enter')
    const screen = await unreachable.waitFor(/\[exit \d+\]/)
    assert.match(
      screen.replace(/\n/g, ''),
      /Cannot reach the server at http:\/\/127\.0\.0\.1:9.*; check the address \(--server\)/,
    )
    assert.not.match(screen, /Username:|Password:/)
    assert.is(await unreachable.exited(), 1)
  } finally {
    await unreachable.close()
  }
  const ok = await w.tty(['login', '--profile', 'new'], { home })
  try {
    await ok.waitFor(/Server:/)
    await ok.keys('-l', w.server)
    await ok.keys('Enter')
    await ok.waitFor(/Username:/)
    await ok.keys('-l', admin.username)
    await ok.keys('Enter')
    await ok.waitFor(/Password:/)
    await ok.keys('-l', admin.password)
    await ok.keys('Enter')
    await ok.waitFor(new RegExp(`Logged in to ${w.server.replace(/[.]/g, '\\.')} as root \\(profile "new"`))
    assert.is(await ok.exited(), 0)
  } finally {
    await ok.close()
  }
  const who = await w.mas(['whoami', '--profile', 'new'], { home })
  assert.is(who.code, 0, who.stderr)
})

test.run()
