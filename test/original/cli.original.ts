import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { json, type Run } from '../cli/cli.js'
import { originalWorld, type OriginalWorld } from './original.js'

// Every command of the first table of issue 19, run by the real `mas` against the original service
// (docs/decisions.md §10): what the original can serve works; what it cannot is refused in one line, exit 1,
// with nothing half done.

let world: Promise<OriginalWorld> | undefined
const setup = () => (world ??= originalWorld())
const scratch = mkdtempSync(join(tmpdir(), 'mas-original-files-'))

const ok = (run: Run) => assert.is(run.code, 0, `exit ${run.code}: ${run.stderr}`)
/** exit 1 and exactly one line on stderr, matching `message` */
function refused(run: Run, message: RegExp) {
  assert.is(run.code, 1, `exit ${run.code}: ${run.stdout} ${run.stderr}`)
  const lines = run.stderr.trim().split('\n')
  assert.is(lines.length, 1, run.stderr)
  assert.match(lines[0], message)
}

interface Place {
  library: number
  project: number
  tagSet: number
  tagClass: number
  media: number[]
}
let placePromise: Promise<Place> | undefined
/** alice's library (made with mas), a project, a tag set and a tag class in it; two of her media files */
const place = () =>
  (placePromise ??= (async () => {
    const w = await setup()
    const made = async (args: string[]) => {
      const run = await w.mas(w.alice, [...args, '--json'])
      ok(run)
      return json(run).id as number
    }
    const library = await made(['library', 'create', w.unique('original library')])
    const project = await made(['project', 'create', w.unique('original project')])
    const tagSet = await made(['tagset', 'create', w.unique('tags'), '--library', String(library)])
    const tagClass = await made(['tagclass', 'create', w.unique('bird'), '--library', String(library)])
    // the original creates no media files through the API: its seed.py writes them as rows
    const media = (await w.alice.api.get<{ results: { id: number }[] }>('mediaFile/', { page_size: 2 })).results.map(
      (m) => m.id,
    )
    if (media.length < 2)
      throw new Error(
        `${w.alice.username} has fewer than 2 media files on ${w.url}: run the original service's seed.py first`,
      )
    return { library, project, tagSet, tagClass, media }
  })())

test.after(async () => {
  rmSync(scratch, { recursive: true, force: true })
  if (world) (await world.catch(() => undefined))?.close()
})

test('tagclass create and tagset create send what the original requires: the display name is the name, no null library', async () => {
  const w = await setup()
  const { library } = await place()
  const name = w.unique('turdus')
  const run = await w.mas(w.alice, ['tagclass', 'create', name, '--library', String(library), '--json'])
  ok(run)
  const tagClass = await w.alice.api.get(`tagClass/${json(run).id}/`)
  assert.is(tagClass.displayName, name)
  assert.is(tagClass.library, library)
  const set = await w.mas(w.alice, ['tagset', 'create', w.unique('set'), '--library', String(library), '--json'])
  ok(set)
  assert.is((await w.alice.api.get(`tagSet/${json(set).id}/`)).library, library)
  // the original requires a library (mas takes null for none): a clear refusal naming the field
  refused(await w.mas(w.alice, ['tagset', 'create', w.unique('set')]), /library: This field may not be null/)
})

test('job create --param writes the parameters through jobParameters/ and queues the job after them; the name is derived', async () => {
  const w = await setup()
  const { project } = await place()
  const run = await w.mas(w.alice, [
    'job',
    'create',
    '--project',
    String(project),
    '--type',
    '8',
    '--param',
    'numToComplete=3',
    '--param',
    'note=x',
    '--json',
  ])
  ok(run)
  const job = await w.alice.api.get(`jobs/${json(run).id}/`)
  assert.equal(job.jobparameters_set.map((p: any) => [p.name, p.value]).sort(), [
    ['note', 'x'],
    ['numToComplete', '3'],
  ])
  assert.is(job.status, 2, 'queued once its parameters are in')
  assert.match(job.name, /^Test \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
  const named = await w.mas(w.alice, [
    'job',
    'create',
    '--project',
    String(project),
    '--type',
    'Test',
    '--name',
    'j',
    '--json',
  ])
  ok(named)
  assert.is((await w.alice.api.get(`jobs/${json(named).id}/`)).name, 'j')
})

test('job create: a parameter the original refuses removes the job again', async () => {
  const w = await setup()
  const { project } = await place()
  const before = (await w.alice.api.all('jobs/')).length
  const run = await w.mas(w.alice, [
    'job',
    'create',
    '--project',
    String(project),
    '--type',
    'Test',
    '--param',
    `${'n'.repeat(300)}=1`,
  ])
  refused(run, /name: Ensure this field has no more than 255 characters.*job \d+ was deleted again/)
  assert.is((await w.alice.api.all('jobs/')).length, before)
})

test('group create and add-user set members by id; names are looked up in user/ by a site admin', async () => {
  const w = await setup()
  const name = w.unique('birders')
  const created = await w.mas(w.admin, [
    'group',
    'create',
    name,
    '--user',
    w.alice.username,
    '--user',
    w.bob.username,
    '--json',
  ])
  ok(created)
  const group = json(created)
  assert.equal([...group.users].sort(), [w.alice.id, w.bob.id].sort())
  ok(await w.mas(w.admin, ['group', 'add-user', name, w.admin.username]))
  assert.equal(
    [...(await w.admin.api.get(`appUserGroup/${group.id}/`)).users].sort(),
    [w.admin.id, w.alice.id, w.bob.id].sort(),
  )
})

test('group create by a user who may not read user/: names refused in one line asking for ids, nothing created; ids work', async () => {
  const w = await setup()
  const name = w.unique('lab')
  refused(
    await w.mas(w.alice, ['group', 'create', name, '--user', w.bob.username]),
    new RegExp(`give the id of "${w.bob.username}"`),
  )
  assert.is((await w.alice.api.all('appUserGroup/')).filter((g: any) => g.name === name).length, 0)
  const byId = await w.mas(w.alice, ['group', 'create', name, '--user', String(w.bob.id), '--json'])
  ok(byId)
  assert.equal(json(byId).users, [w.bob.id])
  refused(
    await w.mas(w.alice, ['group', 'add-user', name, w.admin.username]),
    new RegExp(`give the id of "${w.admin.username}"`),
  )
  ok(await w.mas(w.alice, ['group', 'add-user', name, String(w.alice.id)]))
  assert.equal(
    [...(await w.alice.api.get(`appUserGroup/${json(byId).id}/`)).users].sort(),
    [w.alice.id, w.bob.id].sort(),
  )
})

test("perms grant --user NAME: a site admin's grant names the user's id; others are asked for the id in one line", async () => {
  const w = await setup()
  const { library } = await place()
  const run = await w.mas(w.admin, [
    'perms',
    'grant',
    '--user',
    w.bob.username,
    '--library',
    String(library),
    '--read',
    '--json',
  ])
  ok(run)
  const grant = await w.admin.api.get(`appPermission/${json(run).id}/`)
  assert.equal(
    [grant.bearer_type, grant.bearer_id, grant.target_type, grant.target_id, grant.read],
    ['user', w.bob.id, 'library', library, true],
  )
  refused(
    await w.mas(w.alice, ['perms', 'grant', '--user', w.bob.username, '--library', String(library)]),
    /give --user with .*id/,
  )
  ok(await w.mas(w.alice, ['perms', 'grant', '--user', String(w.bob.id), '--library', String(library)]))
})

/** CSV rows whose startTime is their index */
function csv(media: number[], tagClass: number, n: number): string {
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency']
  for (let i = 0; i < n; i++) rows.push(`${media[i % media.length]},${tagClass},${i},${i + 0.5},100,200`)
  return rows.join('\n') + '\n'
}

test('tag import: one tag a request to a server that takes no arrays, ids in input order; json and ndjson too', async () => {
  const w = await setup()
  const { library, media, tagClass } = await place()
  const newSet = async () => {
    const r = await w.mas(w.alice, ['tagset', 'create', w.unique('import'), '--library', String(library), '--json'])
    ok(r)
    return json(r).id as number
  }
  const set = await newSet()
  const run = await w.mas(w.alice, ['tag', 'import', '-', '--tag-set', String(set), '--batch-size', '1', '--json'], {
    input: csv(media, tagClass, 40),
  })
  ok(run)
  assert.match(run.stderr, /Imported 40 tags into tag set/)
  const records = json(run)
  assert.equal(
    records.map((t: any) => t.startTime),
    Array.from({ length: 40 }, (_v, i) => i),
  )
  const stored = await w.alice.api.all(`tagSet/${set}/tags/`)
  assert.equal(
    stored.map((t: any) => t.id).sort((a: number, b: number) => a - b),
    records.map((t: any) => t.id).sort((a: number, b: number) => a - b),
  )

  for (const format of ['json', 'ndjson']) {
    const exported = await w.mas(w.alice, ['tag', 'export', '--tag-set', String(set), '--format', format])
    ok(exported)
    const target = await newSet()
    const imported = await w.mas(w.alice, ['tag', 'import', '-', '--tag-set', String(target), '--json'], {
      input: exported.stdout,
    })
    ok(imported)
    assert.is(json(imported).length, 40, format)
    assert.is((await w.alice.api.all(`tagSet/${target}/tags/`)).length, 40, format)
  }
})

test('tag import interrupted: exit 130 saying what was created; a re-run creates only the rest', async () => {
  const w = await setup()
  const { library, media, tagClass } = await place()
  const made = await w.mas(w.alice, [
    'tagset',
    'create',
    w.unique('interrupted'),
    '--library',
    String(library),
    '--json',
  ])
  ok(made)
  const set = json(made).id
  const input = csv(media, tagClass, 600)
  let signalled = false
  const first = await w.mas(w.alice, ['tag', 'import', '-', '--tag-set', String(set), '--batch-size', '25'], {
    input,
    onStderr: (text, child) => {
      if (!signalled && /sent (1\d\d|[2-9]\d\d)\/600 tags/.test(text)) {
        signalled = true
        child.kill('SIGINT')
      }
    },
  })
  assert.ok(signalled, `never saw 100 tags sent: ${first.stderr}`)
  assert.is(first.code, 130, first.stderr)
  const done = Number(
    /interrupted: (\d+) of 600 tags created; re-run the same command to create the rest/.exec(first.stderr)?.[1],
  )
  assert.ok(done >= 100 && done < 600, first.stderr)
  assert.is((await w.alice.api.all(`tagSet/${set}/tags/`)).length, done)

  const again = await w.mas(w.alice, ['tag', 'import', '-', '--tag-set', String(set), '--batch-size', '25', '--json'], {
    input,
  })
  ok(again)
  assert.match(
    again.stderr,
    new RegExp(`Imported 600 tags into tag set ${set} \\(.*\\); ${done} of them were created by an earlier run`),
  )
  const ids = json(again).map((t: any) => t.id)
  assert.is(new Set(ids).size, 600)
  const stored = await w.alice.api.all(`tagSet/${set}/tags/`)
  assert.equal(
    stored.map((t: any) => t.startTime).sort((a: number, b: number) => a - b),
    Array.from({ length: 600 }, (_v, i) => i),
  )
  assert.equal(
    stored.map((t: any) => t.id).sort((a: number, b: number) => a - b),
    [...ids].sort((a: number, b: number) => a - b),
  )
})

test('media spectrogram, media import and job result download: one line saying the server cannot do it, nothing done', async () => {
  const w = await setup()
  const { library, media, project } = await place()
  refused(
    await w.mas(w.alice, ['media', 'spectrogram', String(media[0]), '-o', join(scratch, 's.png')]),
    /does not offer spectrograms/,
  )
  const file = join(scratch, 'a.wav')
  writeFileSync(file, Buffer.alloc(64))
  refused(
    await w.mas(w.alice, ['media', 'import', file, '--library', String(library)]),
    /cannot import media files.*nothing was uploaded/,
  )
  const job = await w.mas(w.alice, ['job', 'create', '--project', String(project), '--type', 'Test', '--json'])
  ok(job)
  const notes = join(scratch, 'notes.txt')
  writeFileSync(notes, 'result\n')
  const uploaded = await w.mas(w.alice, ['job', 'result', 'upload', String(json(job).id), notes, '--json'])
  ok(uploaded)
  refused(
    await w.mas(w.alice, ['job', 'result', 'download', String(json(uploaded).id), '-o', join(scratch, 'out.txt')]),
    /does not serve the file of result file/,
  )
})

test('job stop: an ended job is left as it is, saying so with its status (exit 0); a queued one is asked to stop', async () => {
  const w = await setup()
  const { project } = await place()
  const created = await w.mas(w.alice, ['job', 'create', '--project', String(project), '--type', 'Test', '--json'])
  ok(created)
  const id = json(created).id
  ok(await w.mas(w.alice, ['job', 'stop', String(id)]))
  assert.is((await w.alice.api.get(`jobs/${id}/`)).requestedStatus, 5)
  await w.alice.api.patch(`jobs/${id}/`, { status: 6, requestedStatus: null })
  const late = await w.mas(w.alice, ['job', 'stop', String(id)])
  ok(late)
  assert.match(late.stderr, `Job ${id} already ended (Complete)`)
  assert.is((await w.alice.api.get(`jobs/${id}/`)).requestedStatus, null)
})

test.run()
