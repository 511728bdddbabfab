import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cliWorld, type CliWorld } from './cli.js'

// Every refusal says which flag or argument to change: one line on stderr, no stack trace, exit 2 for a
// mistake in how the command was called (docs/decisions.md §10) or 1 when the server refused.

let w: CliWorld
let library: string
let tagSet: string
let tagClass: string

test.before(async () => {
  w = await cliWorld()
  await w.login(await w.t.user('root', { admin: true }))
  library = (await w.mas(['library', 'create', 'Dawn chorus'])).stdout.trim()
  tagSet = (await w.mas(['tagset', 'create', 'Birds', '--library', library])).stdout.trim()
  tagClass = (await w.mas(['tagclass', 'create', 'blackbird', '--library', library])).stdout.trim()
})
test.after(async () => {
  await w.close()
})

interface Refusal {
  args: string[]
  names: RegExp[]
  code: number
  input?: string
}

const refusals = (): Refusal[] => {
  const tag = [
    'tag',
    'create',
    '--tag-set',
    tagSet,
    '--tag-class',
    tagClass,
    '--media-file',
    '1',
    '--start',
    '0',
    '--end',
    '1',
  ]
  return [
    { args: ['media', 'get', 'abc'], names: [/^Error: ID: no media file named "abc"/], code: 1 },
    { args: ['media', 'list', '--library', 'x'], names: [/^Error: --library: no library named "x"/], code: 1 },
    {
      args: ['tag', 'create', '--tag-set', tagSet],
      names: [/--media-file/, /--tag-class/, /--start/, /--end/],
      code: 2,
    },
    { args: ['perms', 'grant', '--library', library, '--read'], names: [/--user/, /--group/], code: 2 },
    { args: ['media', 'import', '--library', library], names: [/^Error: missing argument PATH/], code: 2 },
    {
      args: ['media', 'import', 'x.wav', '--library', library, '--time-offset', '5'],
      names: [/^Error: --time-offset 5: /],
      code: 2,
    },
    { args: ['library', 'list', '--columns', 'id,colour'], names: [/^Error: --columns: no column "colour"/], code: 2 },
    { args: ['library', 'delete', library], names: [/Add --yes to do it$/m], code: 2 },
    { args: ['job', 'result', 'download', '1', '--json'], names: [/--output \(-o\) FILE with --json/], code: 2 },
    { args: ['user', 'create', 'bob'], names: [/--password-stdin/], code: 2 },
    {
      args: ['job', 'create', '--project', '1', '--type', 'Test', '--param', 'steps'],
      names: [/^Error: --param takes name=value, not "steps"/],
      code: 2,
    },
    {
      args: [...tag.slice(0, -4), '--start', 'soon', '--end', '1'],
      names: [/^Error: --start must be a number, not "soon"/],
      code: 2,
    },
    { args: ['tag', 'export', '--tag-set', tagSet, '--format', 'xls'], names: [/--format=xls/], code: 2 },
    { args: ['media', 'list', '--colour'], names: [/--colour/], code: 2 },
    {
      args: ['project', 'add-media', '1', '2', 'dawn.wav'],
      names: [/^Error: MEDIA: no media file named "dawn\.wav"/],
      code: 1,
    },
    {
      args: ['job', 'result', 'upload', '1', 'no-such.csv'],
      names: [/^Error: FILE: no such file: no-such\.csv/],
      code: 2,
    },
    {
      args: ['tag', 'import', 'no-such.csv', '--tag-set', tagSet],
      names: [/^Error: FILE: cannot read no-such\.csv: no such file/],
      code: 1,
    },
    {
      args: ['review', 'import', 'no-such.csv', '--tag-set', tagSet],
      names: [/^Error: FILE: cannot read no-such\.csv: no such file/],
      code: 1,
    },
    // the server's field errors, each field said as the flag or argument that gave it
    {
      args: [...tag.slice(0, 6), '--media-file', '99999', ...tag.slice(8)],
      names: [/^Error: Rejected \(400\): --media-file: /],
      code: 1,
    },
    { args: ['library', 'create', ''], names: [/^Error: Rejected \(400\): NAME: /], code: 1 },
    {
      args: ['login', '--server', w.server, '--username', 'root', '--password-stdin'],
      names: [/--password-stdin/],
      code: 2,
      input: '',
    },
  ]
}

test('each refusal is one line naming the flag or argument, with a non-zero exit and no stack trace', async () => {
  const cases = refusals()
  assert.ok(cases.length >= 8)
  for (const r of cases) {
    const run = await w.mas(r.args, { input: r.input })
    const said = `mas ${r.args.join(' ')} → exit ${run.code}, stderr:\n${run.stderr}`
    assert.is(run.code, r.code, said)
    if (!r.args.includes('--json')) assert.is(run.stdout, '', said)
    assert.is(run.stderr.split('\n').filter(Boolean).length, 1, `not one line: ${said}`)
    assert.not.match(run.stderr, /^\s+at /m, `a stack trace: ${said}`)
    for (const name of r.names) assert.match(run.stderr, name, said)
  }
})

test('under --json the refusal is the JSON error on stdout and the same line on stderr', async () => {
  const run = await w.mas(['library', 'create', '', '--json'])
  assert.is(run.code, 1)
  assert.match(run.stderr, /^Error: Rejected \(400\): NAME: .*\n$/)
  assert.equal(JSON.parse(run.stdout).error.message, run.stderr.slice('Error: '.length, -1))
})

test.run()
