import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { grant, makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'
import { makeRecords } from '../helpers/world.js'

// mas review summary, export, import and open against a real server.

let w: CliWorld
let alice: TestUser
let bob: TestUser
let bobHome: string
let tagSet: number
let tags: number[]
let blackbird: number
let robin: number

const decisionsOf = async (user: TestUser) =>
  (await w.t.call('GET', `/api/v0/tagReview/?tagSet=${tagSet}&user=${user.id}`, { as: alice })).data.results
    .map((r: any) => [r.tag, r.decision, r.tagClass, r.note])
    .sort((a: number[], b: number[]) => a[0] - b[0])

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  bobHome = w.newHome()
  bob = await w.loggedIn('bob', bobHome)
  const records = await makeRecords(w.t, alice, {
    tagSet: 'detector',
    tagClass: { className: 'blackbird' },
    mediaFile: { alias: 'siteA/20260501_050000.WAV' },
  })
  const { library, mediaFile } = records
  ;({ tagClass: blackbird, tagSet } = records)
  robin = await makeTagClass(w.t.db, alice, library, 'robin')
  await grant(w.t.db, alice, { user: bob.id }, { library }, ['read'])
  await grant(w.t.db, alice, { user: bob.id }, { tagSet }, ['read', 'write'])
  tags = []
  for (const [i, strength] of [0.2, 0.5, 0.8, 0.95].entries()) {
    tags.push(
      await makeTag(
        w.t.db,
        alice,
        { tagSet, mediaFile, tagClass: blackbird },
        { strength, startTime: i * 10 + 1.25, endTime: i * 10 + 2.5 },
      ),
    )
  }
  await w.t.call('POST', '/api/v0/tagReview/', { as: alice, body: { tag: tags[3], decision: 'yes' } })
  await w.t.call('POST', '/api/v0/tagReview/', {
    as: alice,
    body: { tag: tags[0], decision: 'no', tagClass: robin, note: 'a robin, "clearly"' },
  })
})
test.after(async () => {
  await w.close()
})

test('review summary: a table per class, one of their strength bands, and the whole summary under --json', async () => {
  const run = await w.mas(['review', 'summary', '--tag-set', 'detector'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /^CLASS\s+TAGS\s+YES\s+NO\s+UNSURE\s+SKIP\s+PRECISION\s+90% FROM\s+95% FROM\s+DISAGREE\n/)
  assert.match(run.stdout, /\nblackbird\s+4\s+1\s+1\s+0\s+0\s+/)
  assert.match(
    run.stderr,
    /2 of 4 tags decided in tag set \d+ \(detector\); no tag was decided by more than one reviewer\n/,
  )
  // then each class's bands that hold tags: decisions, precision and its interval, what keeping the tags from there up gives
  const bands = run.stdout.split('\n\n')[1].trim().split('\n')
  assert.is(bands.length, 5, run.stdout)
  assert.match(bands[0], /^CLASS\s+STRENGTH\s+TAGS\s+YES\s+NO\s+UNSURE\s+PRECISION\s+95% INTERVAL\s+KEPT FROM HERE$/)
  assert.match(bands[1], /^blackbird\s+0\.2-0\.3\s+1\s+0\s+1\s+0\s+0\.0%\s+0\.0%-79\.3%\s+4 tags, 50\.0%$/)
  assert.match(bands[2], /^blackbird\s+0\.5-0\.6\s+1\s+0\s+0\s+0\s+-\s+-\s+3 tags, 100\.0%$/)
  assert.match(bands[3], /^blackbird\s+0\.8-0\.9\s+1\s+0\s+0\s+0\s+-\s+-\s+2 tags, 100\.0%$/)
  assert.match(bands[4], /^blackbird\s+0\.9-1\.0\s+1\s+1\s+0\s+0\s+100\.0%\s+20\.7%-100\.0%\s+1 tag, 100\.0%$/)
  const s = json(await w.mas(['review', 'summary', '--tag-set', String(tagSet), '--json']))
  assert.equal([s.tags, s.decidedTags, s.classes[0].className, s.classes[0].bands.length], [4, 2, 'blackbird', 10])
})

test('review export as CSV and Raven; import of the export by another reviewer, and again changing nothing', async () => {
  const csv = await w.mas(['review', 'export', '--tag-set', 'detector'])
  assert.is(csv.code, 0, csv.stderr)
  const lines = csv.stdout.trim().split('\n')
  assert.is(
    lines[0],
    'mas_tag_id,mediaFile,mas_media_file_id,startTime,endTime,minFrequency,maxFrequency,tagClass,mas_tag_class_id,strength,reviewer,mas_user_id,decision,namedClass,mas_named_class_id,note,creationDate',
  )
  assert.is(lines.length, 3)
  assert.match(lines[2], `${tags[0]},siteA/20260501_050000.WAV,`)
  assert.match(lines[2], `,blackbird,${blackbird},0.2,alice,${alice.id},no,robin,${robin},"a robin, ""clearly""",`)
  const raven = await w.mas(['review', 'export', '--tag-set', 'detector', '--format', 'raven'])
  assert.is(raven.code, 0, raven.stderr)
  const table = raven.stdout
    .replace(/\r\n$/, '')
    .split('\r\n')
    .map((l) => l.split('\t'))
  assert.equal(table[0].slice(-5), ['mas_tag_class_id', 'mas_provenance', 'Review', 'Reviewer', 'Named Class'])
  assert.equal(
    table.slice(1).map((r) => r.slice(-3)),
    [
      ['no', 'alice', 'robin'],
      ['yes', 'alice', ''],
    ],
  )

  const file = join(bobHome, 'decisions.csv')
  writeFileSync(file, csv.stdout)
  const first = await w.mas(['review', 'import', file, '--tag-set', 'detector'], { home: bobHome })
  assert.is(first.code, 0, first.stderr)
  assert.match(first.stderr, /Recorded 2 decisions on tag set \d+ \(detector\): 2 new, 0 changed, 0 already so/)
  assert.equal(await decisionsOf(bob), await decisionsOf(alice))
  const before = (await w.t.call('GET', `/api/v0/tagReview/?user=${bob.id}`, { as: bob })).data.results
  const again = await w.mas(['review', 'import', file, '--tag-set', 'detector'], { home: bobHome })
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stderr, /Recorded 0 decisions .*: 0 new, 0 changed, 2 already so/)
  assert.equal((await w.t.call('GET', `/api/v0/tagReview/?user=${bob.id}`, { as: bob })).data.results, before)

  // the Raven table with other verdicts, read back by its Review column
  const edited = [
    table[0],
    ...table.slice(1).map((r) => [...r.slice(0, -3), r[r.length - 3] === 'no' ? 'unsure' : 'n', '', '']),
  ]
  const ravenFile = join(bobHome, 'checked.selections.txt')
  writeFileSync(ravenFile, edited.map((r) => r.join('\t')).join('\n') + '\n')
  const fromRaven = await w.mas(['review', 'import', ravenFile, '--tag-set', 'detector'], { home: bobHome })
  assert.is(fromRaven.code, 0, fromRaven.stderr)
  assert.equal(
    (await decisionsOf(bob)).map((d: any[]) => d.slice(0, 2)),
    [
      [tags[0], 'unsure'],
      [tags[3], 'no'],
    ],
  )
})

test('review import finds tags by file, times and class (whatever its case); bad rows send nothing', async () => {
  const file = join(bobHome, 'verdicts.csv')
  // a class name in another case finds the one class it can be (issue 47)
  writeFileSync(
    file,
    `mediaFile,startTime,endTime,tagClass,Verdict\n20260501_050000.WAV,21.25,22.5,Blackbird,correct\nsiteA/20260501_050000.WAV,11.25,11.5,blackbird,\n`,
  )
  const run = await w.mas(['review', 'import', file, '--tag-set', 'detector'], { home: bobHome })
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /1 new.*; 1 row without a verdict left alone/)
  assert.ok((await decisionsOf(bob)).some((d: any[]) => d[0] === tags[2] && d[1] === 'yes'))
  const bad = join(bobHome, 'bad.csv')
  writeFileSync(
    bad,
    `mediaFile,startTime,endTime,tagClass,Verdict\n20260501_050000.WAV,11.25,12.5,blackbird,yes\n20260501_050000.WAV,1.25,2.5,blackbird,perhaps\n20260501_050000.WAV,99,100,blackbird,no\n`,
  )
  const refused = await w.mas(['review', 'import', bad, '--tag-set', 'detector'], { home: bobHome })
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /2 rows refused, nothing sent/)
  assert.match(refused.stderr, /line 3: "perhaps" is no verdict/)
  assert.match(
    refused.stderr,
    /line 4: no tag of tag set \d+ \(detector\) at 99-100 s in media file \d+ \([^)]*20260501_050000\.WAV\) of class blackbird/,
  )
  assert.not.ok((await decisionsOf(bob)).some((d: any[]) => d[0] === tags[1]))
})

test('review import refuses a tag id of another tag set, or of no tag, and sends nothing', async () => {
  const { library, mediaFile } = (await w.t.db
    .selectFrom('tags')
    .select(['media_file_id as mediaFile'])
    .innerJoin('tag_sets', 'tag_sets.id', 'tags.tag_set_id')
    .select('tag_sets.library_id as library')
    .where('tags.id', '=', tags[0])
    .executeTakeFirstOrThrow()) as { library: number; mediaFile: number }
  const other = await makeTagSet(w.t.db, alice, library, 'elsewhere')
  await grant(w.t.db, alice, { user: bob.id }, { tagSet: other }, ['read', 'write'])
  const elsewhere = await makeTag(w.t.db, alice, { tagSet: other, mediaFile, tagClass: blackbird })
  const before = await decisionsOf(bob)
  const file = join(bobHome, 'ids.csv')
  writeFileSync(file, `mas_tag_id,decision\n${tags[1]},yes\n${elsewhere},yes\n999999,no\n`)
  const run = await w.mas(['review', 'import', file, '--tag-set', 'detector'], { home: bobHome })
  assert.is(run.code, 1)
  assert.match(run.stderr, /2 rows refused, nothing sent/)
  assert.match(run.stderr, new RegExp(`line 3: no tag ${elsewhere} in tag set \\d+ \\(detector\\)`))
  assert.match(run.stderr, /line 4: no tag 999999 in tag set \d+ \(detector\)/)
  assert.equal(await decisionsOf(bob), before)
  const mineElsewhere = await w.t.call('GET', `/api/v0/tagReview/?tag=${elsewhere}`, { as: alice })
  assert.is(mineElsewhere.data.count, 0)
})

test("review import reads the mas_review column of mas's BirdNET and Kaleidoscope tables, finding tags by their columns", async () => {
  const birdnet = join(bobHome, 'detections.BirdNET.csv')
  writeFileSync(
    birdnet,
    'Start (s),End (s),Scientific name,Common name,Confidence,File,mas_review,mas_provenance\r\n' +
      '31.25,32.5,blackbird,Blackbird,0.95,siteA/20260501_050000.WAV,unsure,\r\n',
  )
  const run = await w.mas(['review', 'import', birdnet, '--tag-set', 'detector'], { home: bobHome })
  assert.is(run.code, 0, run.stderr)
  assert.ok((await decisionsOf(bob)).some((d: any[]) => d[0] === tags[3] && d[1] === 'unsure'))
  const kaleidoscope = join(bobHome, 'id.csv')
  /** a Kaleidoscope table of mas's with rows of (offset, mas_review) on the blackbird's recording */
  const kaleidoscopeRows = (...rows: Array<[number, string]>) =>
    writeFileSync(
      kaleidoscope,
      'INDIR,FOLDER,IN FILE,OFFSET,DURATION,FMIN,FMAX,TOP1MATCH,TOP1DIST,mas_review\r\n' +
        rows
          .map(([offset, review]) => `,siteA,20260501_050000.WAV,${offset},1.25,0,0,blackbird,,${review}\r\n`)
          .join(''),
    )
  kaleidoscopeRows([11.25, 'no'], [1.25, 'yes;no'])
  const several = await w.mas(['review', 'import', kaleidoscope, '--tag-set', 'detector'], { home: bobHome })
  assert.is(several.code, 1)
  assert.match(several.stderr, /line 3: "yes;no" holds several reviewers' decisions/)
  kaleidoscopeRows([11.25, 'no'])
  const one = await w.mas(['review', 'import', kaleidoscope, '--tag-set', 'detector'], { home: bobHome })
  assert.is(one.code, 0, one.stderr)
  assert.ok((await decisionsOf(bob)).some((d: any[]) => d[0] === tags[1] && d[1] === 'no'))
})

test('review open prints the page with a one-time code, which logs a browser in once', async () => {
  const run = await w.mas(['review', 'open', '--tag-set', 'detector', '--no-browser'])
  assert.is(run.code, 0, run.stderr)
  const url = new URL(run.stdout.trim())
  assert.equal([url.origin, url.pathname, url.search], [w.server, '/review/', `?tagSet=${tagSet}`])
  assert.not.match(run.stdout, alice.token)
  const code = new URLSearchParams(url.hash.slice(1)).get('code')!
  const exchange = () => w.t.app.inject({ method: 'POST', url: '/api-auth/code/', payload: { code } })
  const first = await exchange()
  assert.is(first.statusCode, 200)
  const session = [first.headers['set-cookie']].flat().find((c) => String(c).startsWith('sessionid='))!
  const me = await w.t.app.inject({
    method: 'GET',
    url: `/api/v0/tagSet/${tagSet}/reviewSummary/`,
    headers: { cookie: String(session).split(';')[0] },
  })
  assert.is(me.statusCode, 200)
  const second = await exchange()
  assert.equal([second.statusCode, second.json()], [400, { code: ['Invalid or expired code.'] }])
  const page = await w.t.app.inject({ method: 'GET', url: '/review/' })
  assert.equal([page.statusCode, page.headers['content-type']], [200, 'text/html; charset=utf-8'])
})

/** A folder holding a stand-in for the desktop's opener (xdg-open: an external program) that writes down the address it was given. */
function fakeOpener(): { bin: string; opened: string } {
  const bin = join(w.newHome(), 'bin')
  mkdirSync(bin)
  const opened = join(bin, 'opened')
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" > '${opened}'\n`, { mode: 0o755 })
  return { bin, opened }
}

/** What the detached opener wrote, once it has written a whole line. */
async function openedAddress(path: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const text = existsSync(path) ? readFileSync(path, 'utf8') : ''
    if (text.endsWith('\n')) return text.trim()
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`the opener wrote nothing to ${path}`)
}

test('review open opens the default browser (xdg-open on PATH) with the address it prints; where none can be opened it says so in one line', async () => {
  const desktop = fakeOpener()
  const run = await w.mas(['review', 'open', '--tag-set', 'detector'], {
    env: { PATH: desktop.bin, DISPLAY: ':0', WAYLAND_DISPLAY: undefined },
  })
  assert.is(run.code, 0, run.stderr)
  assert.is(run.stderr, '')
  assert.is(await openedAddress(desktop.opened), run.stdout.trim())
  assert.match(run.stdout, new RegExp(`^${w.server}/review/\\?tagSet=${tagSet}#code=\\w+\n$`))
  // no opener on PATH: the address, and one line saying why no browser came up
  const noOpener = await w.mas(['review', 'open', '--tag-set', 'detector'], {
    env: { PATH: w.newHome(), DISPLAY: ':0' },
  })
  assert.is(noOpener.code, 0, noOpener.stderr)
  assert.match(noOpener.stdout, `${w.server}/review/?tagSet=${tagSet}#code=`)
  assert.is(noOpener.stderr, 'Warning: no browser was opened: xdg-open was not found on PATH; open the address above\n')
  // no display (a server reached over ssh): the opener is not tried
  const headless = fakeOpener()
  const noDisplay = await w.mas(['review', 'open', '--tag-set', 'detector'], {
    env: { PATH: headless.bin, DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
  })
  assert.is(noDisplay.code, 0, noDisplay.stderr)
  assert.match(noDisplay.stdout, `${w.server}/review/?tagSet=${tagSet}#code=`)
  assert.is(
    noDisplay.stderr,
    'Warning: no browser was opened: no display here (DISPLAY and WAYLAND_DISPLAY are unset); open the address above\n',
  )
  assert.not.ok(existsSync(headless.opened))
  // --no-browser only prints
  const quiet = fakeOpener()
  const printed = await w.mas(['review', 'open', '--tag-set', 'detector', '--no-browser'], {
    env: { PATH: quiet.bin, DISPLAY: ':0' },
  })
  assert.equal([printed.code, printed.stderr], [0, ''])
  assert.match(printed.stdout, `${w.server}/review/?tagSet=${tagSet}#code=`)
  assert.not.ok(existsSync(quiet.opened))
})

test('review open --strategy (or --order) opens the page in that order; a strategy the queue does not have is refused in one line', async () => {
  const run = await w.mas(['review', 'open', '--tag-set', 'detector', '--strategy', 'uncertain', '--no-browser'])
  assert.is(run.code, 0, run.stderr)
  const url = new URL(run.stdout.trim())
  assert.equal([url.pathname, url.search], ['/review/', `?tagSet=${tagSet}&strategy=uncertain`])
  const bad = await w.mas(['review', 'open', '--tag-set', 'detector', '--strategy', 'confident', '--no-browser'])
  assert.is(bad.code, 2)
  assert.is(bad.stdout, '')
  assert.is(bad.stderr.trim().split('\n').length, 1, bad.stderr)
  assert.match(bad.stderr, '--strategy')
  assert.match(bad.stderr, 'strata, top, uncertain, random')
  // --order is another name for --strategy
  const byOrder = await w.mas(['review', 'open', '--tag-set', 'detector', '--order', 'uncertain', '--no-browser'])
  assert.is(byOrder.code, 0, byOrder.stderr)
  assert.is(new URL(byOrder.stdout.trim()).search, `?tagSet=${tagSet}&strategy=uncertain`)
  const badOrder = await w.mas(['review', 'open', '--tag-set', 'detector', '--order', 'confident', '--no-browser'])
  assert.equal([badOrder.code, badOrder.stdout, badOrder.stderr.trim().split('\n').length], [2, '', 1], badOrder.stderr)
  assert.match(badOrder.stderr, 'strata, top, uncertain, random')
  const help = await w.mas(['review', 'open', '--help'])
  assert.match(help.stdout, 'review open --tag-set 1 --strategy uncertain')
  assert.match(help.stdout, 'review open --tag-set 1 --order uncertain')
})

test('review export --format raven lays tables out as tag export does: exit 2 across sequences, --per-sequence, --per-file', async () => {
  const {
    library,
    mediaFile: siteA,
    tagClass: wren,
    tagSet: set,
  } = await makeRecords(w.t, alice, {
    library: 'two sites',
    tagSet: 'two sites',
    tagClass: { className: 'wren' },
    mediaFile: { alias: 'siteA/20260501_050000.WAV' },
  })
  const siteB = await makeMediaFile(w.t.db, alice, library, { alias: 'siteB/20260501_050000.WAV' })
  for (const mediaFile of [siteA, siteB]) {
    const tag = await makeTag(
      w.t.db,
      alice,
      { tagSet: set, mediaFile, tagClass: wren },
      { strength: 0.9, startTime: 1, endTime: 2 },
    )
    assert.is(
      (await w.t.call('POST', '/api/v0/tagReview/', { as: alice, body: { tag, decision: 'yes' } })).statusCode,
      201,
    )
  }
  const mixed = await w.mas(['review', 'export', '--tag-set', 'two sites', '--format', 'raven'])
  assert.is(mixed.code, 2)
  assert.is(mixed.stdout, '')
  assert.match(mixed.stderr, 'the tags lie in 2 sequences of recordings (siteA, siteB)')
  assert.match(mixed.stderr, '--per-sequence DIR')

  const dir = join(w.newHome(), 'verified')
  const perSequence = await w.mas([
    'review',
    'export',
    '--tag-set',
    'two sites',
    '--format',
    'raven',
    '--per-sequence',
    dir,
  ])
  assert.is(perSequence.code, 0, perSequence.stderr)
  assert.match(perSequence.stderr, `Wrote 2 selection tables below ${dir}`)
  assert.equal(readdirSync(dir).sort(), ['siteA.selections.txt', 'siteB.selections.txt'])
  const table = readFileSync(join(dir, 'siteB.selections.txt'), 'utf8')
    .split('\r\n')
    .map((l) => l.split('\t'))
  assert.equal(table[0].slice(-3), ['Review', 'Reviewer', 'Named Class'])
  assert.equal(
    table.slice(1, -1).map((r) => [r[table[0].indexOf('Begin Path')], r[table[0].indexOf('Species')], ...r.slice(-3)]),
    [['siteB/20260501_050000.WAV', 'wren', 'yes', 'alice', '']],
  )

  const files = join(w.newHome(), 'per-file')
  const perFile = await w.mas([
    'review',
    'export',
    '--tag-set',
    'two sites',
    '--format',
    'raven',
    '--per-file',
    files,
    '--path-prefix',
    'D:\\Field',
  ])
  assert.is(perFile.code, 0, perFile.stderr)
  const siteAFile = readFileSync(join(files, 'siteA', '20260501_050000.Table.1.selections.txt'), 'utf8')
  assert.match(siteAFile, '\tD:\\Field\\siteA\\20260501_050000.WAV\t')

  const csvWithLayout = await w.mas(['review', 'export', '--tag-set', 'two sites', '--per-sequence', dir])
  assert.is(csvWithLayout.code, 2)
  assert.match(csvWithLayout.stderr, '--per-sequence is for Raven tables: give --format raven')
})

test('review import reads several files and the tables below folders, each error told by its file', async () => {
  const dir = join(bobHome, 'verdicts')
  mkdirSync(join(dir, 'siteA'), { recursive: true })
  writeFileSync(join(dir, 'siteA', 'one.csv'), `mas_tag_id,Verdict\n${tags[1]},unsure\n`)
  writeFileSync(join(dir, 'two.csv'), `mas_tag_id,Verdict\n${tags[3]},no\n`)
  writeFileSync(join(dir, 'notes.txt'), 'what we listened to\n')
  const single = join(bobHome, 'single.csv')
  writeFileSync(single, `mas_tag_id,Verdict\n${tags[2]},unsure\n`)
  const run = await w.mas(['review', 'import', dir, single, '--tag-set', 'detector'], { home: bobHome })
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /notes\.txt: passed over: no verdict column/)
  assert.match(
    run.stderr,
    /Recorded \d+ decisions? on tag set \d+ \(detector\): \d+ new, \d+ changed, \d+ already so/,
    run.stderr,
  )
  const mine = new Map((await decisionsOf(bob)).map((d: any[]) => [d[0], d[1]]))
  assert.equal([mine.get(tags[1]), mine.get(tags[3]), mine.get(tags[2])], ['unsure', 'no', 'unsure'])
  writeFileSync(join(dir, 'two.csv'), `mas_tag_id,Verdict\n${tags[3]},perhaps\n`)
  const refused = await w.mas(['review', 'import', dir, '--tag-set', 'detector'], { home: bobHome })
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /two\.csv: line 2: "perhaps" is no verdict/)
})

test.run()
