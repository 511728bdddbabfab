import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CLUSTER_DIR, stopCluster } from '../../server/db/cluster.js'
import { tempDir } from '../helpers/tempDir.js'
import { makeWav } from '../helpers/wav.js'

// Every `--help` example works as written against a fresh server: `mas server start` in a folder of its
// own (its data directory ./.mas, its first admin "admin"), `mas login` as that admin, then the examples
// of oclif's manifest, command by command, in the order of ORDER (creates before lists, deletes last),
// each run by bash in that folder with `mas` on the PATH. The folder holds what examples name (audio
// files the test writes, a CSV and a Raven table of tags). Commands and examples that cannot run here
// are listed below with the reason.

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../..')
const BIN = join(ROOT, 'bin', 'run.js')
const ADMIN_PASSWORD = 'admin-Examples-Pass-1'

interface ManifestCommand {
  id: string
  pluginName?: string
  examples?: Array<string | { command: string }>
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}

/** The order in which each command's examples run; ids on a fresh server follow from it (library 1, tag set 1, ...). */
const ORDER = [
  'login',
  'whoami',
  'token',
  'user:create',
  'user:list',
  'user:set-password',
  'group:create',
  'group:add-user',
  'group:list',
  'group:remove-user',
  'library:create',
  'library:list',
  'tagset:create',
  'tagset:list',
  'tagclass:create',
  'tagclass:list',
  'perms:grant',
  'perms:list',
  'media:import',
  'sensor-array:create',
  'sensor-array:list',
  'sensor:create',
  'sensor:list',
  'media:list',
  'media:get',
  'media:spectrogram',
  'tag:create',
  'tag:import',
  'tag:list',
  'tag:export',
  'review:summary',
  'review:export',
  'review:import',
  'review:open',
  'eval',
  'project:create',
  'project:add-media',
  'project:list',
  'project:remove-media',
  'report:diel',
  'report:daily',
  'report:accumulation',
  'report:matrix',
  'report:coverage',
  'report:density',
  'model:list',
  'job:types',
  'job:create',
  'job:stop',
  'worker:start',
  'job:list',
  'job:get',
  'job:watch',
  'job:result:upload',
  'job:result:list',
  'job:result:download',
  'db:url',
  'db:backup',
  'db:restore',
  // after every example whose ids follow from the order: a speech policy queues a job and makes a tag set
  'library:update',
  'job:result:delete',
  'tag:delete',
  'tagclass:delete',
  'tagset:delete',
  'project:delete',
  'perms:revoke',
  'group:delete',
  'sensor:delete',
  'sensor-array:delete',
  'media:delete',
  'library:delete',
  'user:deactivate',
  'logout',
]

/** Commands none of whose examples run here. */
const COMMANDS_NOT_RUN: Record<string, string> = {
  'server:start':
    "the server of this test is `mas server start --port 0` in the examples' folder; its examples bind port 8000, " +
    'all addresses or another PostgreSQL (test/commands/serverStart.test.ts runs the command itself)',
  'model:add':
    'its examples name model files an operator brings (BirdNET, Perch), which no test can download; ' +
    'test/cli/model.test.ts runs the command with a model the test writes',
  similar:
    'it searches the embeddings an EmbedAudio job stored, which a fresh server has none of; test/cli/similar.test.ts runs it',
  train:
    'it learns from reviewed tags on stored embeddings, which a fresh server has none of; test/cli/similar.test.ts runs it',
}

/** Single examples that do not run here, and why. */
const EXAMPLES_NOT_RUN: Record<string, string> = {
  'mas login --server https://mas.example.org': 'another server; asks for username and password on a terminal',
  'mas login --profile lab --server https://lab.example.org':
    'another server; asks for username and password on a terminal',
  'psql "$(mas db url --data-dir /srv/mas)"': 'a data directory elsewhere, and psql',
  'mas db backup /mnt/backup/mas --data-dir /srv/mas': 'a data directory elsewhere',
  'DATABASE_URL=postgres://mas@db/mas mas worker start': 'another PostgreSQL',
  'DATABASE_URL=postgres://mas@db/mas mas worker start --concurrency 4': 'another PostgreSQL',
  'DATABASE_URL=postgres://mas@db/mas mas worker start --execution-provider cuda':
    'another PostgreSQL, and a GPU with CUDA, which no machine ' +
    'of the tests has (test/commands/workerStart.test.ts checks that a machine without refuses it in one line)',
}
/** A delete without --yes asks on a terminal and refuses anywhere else (test/cli/delete.test.ts answers it
 * in a pseudo-terminal); here its --yes example deletes the same record. */
const asksFirst = (example: string) => / delete \S+$|perms revoke \S+$|user deactivate \S+$/.test(example)

/** Examples that keep running (a worker): started in the background, stopped when the test ends. */
const IN_BACKGROUND = new Set(['mas worker start --data-dir ./.mas', 'mas worker start --data-dir ./.mas --threads 2'])

const render = (e: string | { command: string }) =>
  (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', 'mas')

let dir: string
let server: ChildProcess
let serverUrl: string
const background: ChildProcess[] = []
let env: NodeJS.ProcessEnv

test.before(async () => {
  dir = tempDir('mas-examples-')
  const bin = join(dir, 'bin')
  mkdirSync(bin)
  writeFileSync(join(bin, 'mas'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  chmodSync(join(bin, 'mas'), 0o755)
  const home = join(dir, 'home')
  env = { ...process.env }
  for (const k of Object.keys(env)) if (k.startsWith('MAS_') || k.startsWith('XDG_') || k === 'DEBUG') delete env[k]
  Object.assign(env, {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
    DATABASE_URL: '',
    NO_COLOR: '1',
    MAS_PASSWORD: ADMIN_PASSWORD,
    PASSWORD: 'bob-Examples-Pass-1',
    NEW_PASSWORD: 'bob-Examples-Pass-2',
  })
  writeFixtures(dir)
  server = spawn(process.execPath, [BIN, 'server', 'start', '--port', '0'], {
    cwd: dir,
    env: { ...env, MAS_ADMIN_PASSWORD: ADMIN_PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  server.stdout!.on('data', (d) => {
    out += d
  })
  server.stderr!.on('data', (d) => {
    out += d
  })
  serverUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setInterval(() => {
      const m = /mas is serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearInterval(timer)
        resolveUrl(m[1])
      }
    }, 50)
    server.on('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`mas server start exited (${code}): ${out}`))
    })
  })
})

test.after(async () => {
  for (const p of [...background, server]) if (p.exitCode === null) p.kill('SIGTERM')
  await Promise.all(
    [...background, server].map((p) => new Promise((r) => (p.exitCode === null ? p.on('exit', r) : r(null)))),
  )
  await stopCluster(join(dir, '.mas', CLUSTER_DIR))
  await stopCluster(join(dir, 'restored', CLUSTER_DIR))
  rmSync(dir, { recursive: true, force: true })
})

/** Audio files (different bytes each, 3 s), tags as CSV and as a Raven selection table. */
function writeFixtures(at: string): void {
  let tone = 440
  const wav = (path: string) => {
    mkdirSync(dirname(join(at, path)), { recursive: true })
    writeFileSync(join(at, path), makeWav({ seconds: 3, frequency: (tone += 110), sampleRate: 16000 }))
  }
  for (const p of [
    'recordings/siteA/2026-05-01/20260501_050000.WAV',
    'recordings/siteA/2026-05-01/20260501_060000.WAV',
    'recordings/siteB/2026-05-01/20260501_050000.WAV',
    'season-2026/SM4-01/20260502_050000.wav',
    'season-2026/SM4-02/20260502_050000.wav',
    'dawn.wav',
    'dusk.wav',
    'survey/a/1.wav',
    'survey/b/2.wav',
  ])
    wav(p)
  // every tag of tag set 1 on one recording, so that it is one sequence and `tag export --format raven` writes one table
  writeFileSync(
    join(at, 'detections.csv'),
    'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency\n1,1,0.5,1.0,1000,4000\n',
  )
  writeFileSync(
    join(at, 'XC1234.Table.1.selections.txt'),
    [
      'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies',
      '1\tSpectrogram 1\t1\t0.2\t0.9\t1500\t6000\t1',
      '',
    ].join('\n'),
  )
  // a BirdNET-Analyzer CSV naming a recording by its path on another computer, and an Audacity label track named after one
  mkdirSync(join(at, 'birdnet'))
  writeFileSync(
    join(at, 'birdnet', '20260501_060000.BirdNET.results.csv'),
    [
      'Start (s),End (s),Scientific name,Common name,Confidence,File',
      '0.0,3.0,Turdus merula,Eurasian Blackbird,0.81,D:\\Field\\recordings\\siteA\\2026-05-01\\20260501_060000.WAV',
      '',
    ].join('\r\n'),
  )
  mkdirSync(join(at, 'labels', 'siteA', '2026-05-01'), { recursive: true })
  writeFileSync(join(at, 'labels', 'siteA', '2026-05-01', '20260501_060000.WAV.txt'), '0.500000\t1.250000\tblackbird\n')
}

function sh(command: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolveRun) => {
    const child = spawn('bash', ['-c', command], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      out += d
    })
    child.on('close', (code) => resolveRun({ code, out }))
  })
}

test('every command of the CLI has an example in --help, and each is run below or excluded with a reason', () => {
  const ours = Object.values(manifest.commands).filter((c) => c.pluginName === 'mas' || c.pluginName === undefined)
  for (const c of ours) {
    assert.ok((c.examples ?? []).length > 0, `${c.id} has no example`)
    assert.ok(
      ORDER.includes(c.id) !== c.id in COMMANDS_NOT_RUN,
      `${c.id}: in neither (or both) of ORDER and COMMANDS_NOT_RUN`,
    )
  }
  for (const id of ORDER) assert.ok(manifest.commands[id], `${id} is not a command`)
})

test('the examples work as written against a fresh server, logged in as its admin', async () => {
  const failures: string[] = []
  let ran = 0
  for (const id of ORDER) {
    let ranOfCommand = 0
    for (const example of (manifest.commands[id].examples ?? []).map(render)) {
      if (example in EXAMPLES_NOT_RUN || asksFirst(example)) continue
      // the one thing not as written: this test's server listens on a port of its own
      const command = example.replace('http://127.0.0.1:8000', serverUrl)
      if (IN_BACKGROUND.has(example)) {
        background.push(spawn('bash', ['-c', `exec ${command}`], { cwd: dir, env, stdio: 'ignore' }))
        ranOfCommand++
        continue
      }
      const { code, out } = await sh(command)
      ranOfCommand++
      if (code !== 0) failures.push(`${example}\n  exit ${code}: ${out.trim().split('\n').slice(-3).join('\n  ')}`)
    }
    assert.ok(ranOfCommand > 0, `no example of ${id} ran`)
    ran += ranOfCommand
  }
  assert.equal(failures, [], `${failures.length} of ${ran} examples failed:\n${failures.join('\n')}`)
  assert.ok(ran >= 90, `only ${ran} examples ran`)
})

test.run()
