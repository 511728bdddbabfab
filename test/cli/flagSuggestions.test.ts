import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { homeEnv, runMas } from './cli.js'

// A mistyped flag names the nearest flag the command has, in one line with exit 2, as a mistyped command
// names the nearest command (issue 47): for every command, those of BaseCommand and the server's alike.
// The parser refuses before anything is asked of a server, so no server is needed.

let home: string
const mas = (args: string[]) => runMas(args, { env: homeEnv(home) })

test.before(() => {
  home = mkdtempSync(join(tmpdir(), 'mas-flags-'))
})
test.after(() => {
  rmSync(home, { recursive: true, force: true })
})

test('mas tag list --tagset X: did you mean --tag-set?', async () => {
  const run = await mas(['tag', 'list', '--tagset', 'X'])
  assert.is(run.code, 2)
  assert.is(run.stderr, 'Error: Unknown flag --tagset: did you mean --tag-set?\n')
  assert.is(run.stdout, '')
})

test('every command: its own flags, the global ones, --json and --help; a flag given with =value; aliases suggest the flag', async () => {
  const cases: Array<[string[], string]> = [
    [['media', 'list', '--libary', 'x'], 'Unknown flag --libary: did you mean --library?'],
    [
      ['tag', 'import', 'f.csv', '--tag-set=1', '--create-class'],
      'Unknown flag --create-class: did you mean --create-classes?',
    ],
    [['library', 'list', '--profle', 'work'], 'Unknown flag --profle: did you mean --profile?'],
    [['library', 'list', '--jsn'], 'Unknown flag --jsn: did you mean --json?'],
    [['library', 'list', '--hepl'], 'Unknown flag --hepl: did you mean --help?'],
    [['tag', 'list', '--tagset=3'], 'Unknown flag --tagset: did you mean --tag-set?'],
    // perms takes the older --tagset as a hidden alias of --tag-set: the suggestion is the flag's name
    [['perms', 'list', '--tagse', '3'], 'Unknown flag --tagse: did you mean --tag-set?'],
  ]
  for (const [args, line] of cases) {
    const run = await mas(args)
    assert.is(run.code, 2, args.join(' '))
    assert.is(run.stderr, `Error: ${line}\n`, args.join(' '))
  }
})

test('nothing near: said so; several unknown flags in one line', async () => {
  const far = await mas(['library', 'list', '--colour'])
  assert.is(far.code, 2)
  assert.is(far.stderr, 'Error: Unknown flag --colour: see --help for the flags there are\n')
  const several = await mas(['tag', 'list', '--tagset', '3', '--colour'])
  assert.is(several.code, 2)
  assert.is(
    several.stderr,
    'Error: Unknown flags --tagset (did you mean --tag-set?), --colour: see --help for the flags there are\n',
  )
})

test('the commands outside BaseCommand (server, worker, db) suggest too, in one line', async () => {
  const run = await mas(['db', 'url', '--data-dri', 'x'])
  assert.is(run.code, 2)
  // oclif prints these commands' errors itself, its marker coloured where it likes
  assert.match(
    stripVTControlCharacters(run.stderr),
    /^ › {3}Error: Unknown flag --data-dri: did you mean --data-dir\?\n$/,
  )
  const server = await mas(['server', 'start', '--prot', '0'])
  assert.is(server.code, 2)
  assert.match(server.stderr, /Error: Unknown flag --prot: did you mean --port\?\n$/)
  assert.is(server.stderr.split('\n').filter(Boolean).length, 1)
})

test.run()
