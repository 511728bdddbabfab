// The review page (README, "Reviewing machine tags"): plain web components over the mas API, with the browser's
// session. <mas-review-app> logs in (a one-time code in the URL fragment, or a username and password), shows the
// caller's review queue of a tag set as a grid of <mas-review-clip>, records decisions as they are made, and
// shows the progress and the running precision per class. From any clip, "find similar" shows the windows of the
// library most like it (tag/{id}/similar/); marking one makes it a machine tag in a tag set the reviewer names,
// with the decision on it, and "train" starts a TrainClassifier job from those decisions (README, "Search by example").
// Under the summary, <mas-report-charts> shows the tag set's activity report charts as the server draws them.

const API = '/api/v0/'
/** seconds of recording shown (and heard) on each side of a tag */
const CONTEXT = 1
const BATCH = 12
const KEYS = { y: 'yes', n: 'no', u: 'unsure', s: 'skip' }
/** the queue's strategies (its `strategy` parameter), the first the default, as the server describes them (the
 * browser test checks them against it); the page's address may name one */
const STRATEGIES = {
  strata: 'evenly across the ten strength bands, so precision can be estimated at every threshold',
  top: 'strongest first',
  uncertain:
    "strength nearest 0.5 first: where a detector's probability is least sure, so each decision teaches its next run most",
  random: 'any',
}

/** the activity reports (README, "Activity reports"), each drawn by the server as `mas report NAME -o` draws it (the
 * browser test checks the names against the server's) */
const REPORTS = {
  diel: 'detections by hour of the day',
  daily: 'detections per day',
  accumulation: 'classes detected over the recording days',
  matrix: 'detections per site and day',
  coverage: 'hours recorded per site and day',
  density: 'estimated calls per class, from the reviews',
}

const cookie = (name) =>
  document.cookie
    .split('; ')
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1) ?? ''

/** A call of the API with the session; writes carry the CSRF token. Answers the parsed body, or throws. */
async function call(method, path, body) {
  // marked as a script's, so that a 401 does not make the browser ask for a password over the page
  const headers = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' }
  if (method !== 'GET') {
    headers['x-csrftoken'] = cookie('csrftoken')
    headers['content-type'] = 'application/json'
  }
  const res = await fetch(path.startsWith('/') ? path : API + path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const data = res.status === 204 ? null : await res.json().catch(() => null)
  if (!res.ok) throw refusal(res, data)
  return data
}

/** the error of a refused answer, saying what its JSON body says */
const refusal = (res, data) =>
  Object.assign(
    new Error(
      data?.detail ??
        (Object.values(data ?? {})
          .flat()
          .join(' ') ||
          res.statusText),
    ),
    { status: res.status },
  )

const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v)
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : String(v))
  }
  e.append(...children.filter((c) => c !== null && c !== undefined))
  return e
}
const pct = (p) => (p === null || p === undefined ? '–' : `${Math.round(p * 100)}%`)

/** Parameters that name records by id (the model is named by its source, the tag set and library by the page). */
const RECORD_PARAMETERS = new Set(['model', 'destinationTagSet', 'library', 'project', 'mediaFileId'])

/** A setting's value as people know it: a tag set or class the page knows by its name, anything else as it is. */
function shownSetting(key, value, known) {
  const named = /TagSet$/.test(key)
    ? known.tagSets?.find((s) => s.id === Number(value))?.name
    : key === 'tagClass'
      ? known.classes?.find((c) => c.id === Number(value))?.className
      : undefined
  return named === undefined ? value : JSON.stringify(named)
}

/** What made a machine tag, from its provenance: the model or tool and its version, the job, and its settings (the
 * tag sets and classes they name by their names, from `known`). */
function madeBy(p, known = {}) {
  if (!p || typeof p !== 'object' || !p.source) return null
  const settings = Object.entries(p.parameters ?? {})
    .filter(([k]) => !RECORD_PARAMETERS.has(k))
    .map(([k, v]) => `${k} ${shownSetting(k, v, known)}`)
  return [[p.source, p.version].filter(Boolean).join(' '), p.job ? `job ${p.job}` : null, ...settings]
    .filter(Boolean)
    .join(' · ')
}

/** One tag to decide: its spectrogram with a second of context each side (its box drawn), its audio, its verdict. */
class ReviewClip extends HTMLElement {
  /** @param {{tag: object, mediaFile: object, className: string, classes: object[], tagSets: object[], tagSet: number, decide: Function}} o */
  setup(o) {
    this.o = o
    const t = o.tag
    const start = Math.max(0, t.startTime - CONTEXT)
    // the context after a tag stops at the recording's end, which the server will not draw past
    const duration = Number(o.mediaFile?.mediafilemetadata_set?.find((m) => m.name === 'durationInSeconds')?.value)
    const end = duration > 0 ? Math.min(duration, t.endTime + CONTEXT) : t.endTime + CONTEXT
    if (t.id) this.dataset.tag = t.id
    const picture = el('img', {
      alt: t.id ? `tag ${t.id}` : `window ${t.startTime.toFixed(2)}–${t.endTime.toFixed(2)} s`,
      loading: 'lazy',
      src: `${API}mediaFile/${t.mediaFile}/spectra/?format=png&startTime=${start}&endTime=${end}&tagSet=${o.tagSet}`,
    })
    // exactly the clip, by a media fragment; the server answers the Range requests the player makes
    this.audio = el('audio', { controls: true, preload: 'none', src: `${o.mediaFile.url}#t=${start},${end}` })
    // a play button of the page's own beside the browser's player: a phone's narrow player may show none
    this.playButton = el(
      'button',
      {
        type: 'button',
        class: 'play',
        'aria-label': 'play',
        title: 'play (p)',
        onclick: (e) => {
          e.stopPropagation()
          o.focus(this)
          this.toggle()
        },
      },
      '▶',
    )
    for (const event of ['play', 'pause', 'ended']) this.audio.addEventListener(event, () => this.showPlaying())
    this.verdict = el('span', { class: 'verdict' })
    const other = el(
      'select',
      {
        'aria-label': 'another class',
        onchange: (e) => {
          if (e.target.value) o.decide(this, 'no', Number(e.target.value))
        },
      },
      el('option', { value: '' }, 'another class…'),
      ...o.classes
        .filter((c) => c.id !== t.tagClass)
        .map((c, i) => el('option', { value: c.id }, `${i + 1 <= 9 ? `${i + 1} ` : ''}${c.className}`)),
    )
    this.replaceChildren(
      picture,
      el(
        'div',
        { class: 'clip-body' },
        el(
          'div',
          { class: 'clip-title' },
          el('span', {}, `${o.className} · ${t.strength === null ? '–' : t.strength.toFixed(2)}`),
          this.verdict,
        ),
        el('div', {}, `${o.mediaFile.alias ?? o.mediaFile.id} @ ${t.startTime.toFixed(2)}–${t.endTime.toFixed(2)} s`),
        madeBy(t.provenance)
          ? el('div', { class: 'made-by', title: JSON.stringify(t.provenance, null, 1) }, madeBy(t.provenance, o))
          : null,
        el('div', { class: 'player' }, this.playButton, this.audio),
        el(
          'div',
          { class: 'clip-actions' },
          ...Object.entries(KEYS).map(([key, d]) =>
            el(
              'button',
              {
                type: 'button',
                title: `${d} (${key})`,
                onclick: (e) => {
                  e.stopPropagation()
                  o.decide(this, d)
                },
              },
              d,
            ),
          ),
          other,
          o.findSimilar
            ? el(
                'button',
                {
                  type: 'button',
                  class: 'similar',
                  title: 'the windows of the library most like this one',
                  onclick: (e) => {
                    e.stopPropagation()
                    o.findSimilar(this)
                  },
                },
                'find similar',
              )
            : null,
        ),
      ),
    )
    this.addEventListener('click', () => o.focus(this))
  }

  show(decision, tagClass) {
    this.setAttribute('decision', decision)
    const named = tagClass ? this.o.classes.find((c) => c.id === tagClass)?.className : null
    this.verdict.textContent = named ? `${decision}: ${named}` : decision
  }

  play() {
    this.audio.currentTime = Math.max(0, this.o.tag.startTime - CONTEXT)
    this.audio.play().catch(() => {})
  }

  /** the play button: plays the clip (from its start when it has ended), or pauses it */
  toggle() {
    if (!this.audio.paused) return this.audio.pause()
    const start = Math.max(0, this.o.tag.startTime - CONTEXT)
    if (this.audio.ended || this.audio.currentTime < start || this.audio.currentTime >= this.o.tag.endTime + CONTEXT)
      this.play()
    else this.audio.play().catch(() => {})
  }

  showPlaying() {
    const playing = !this.audio.paused
    this.playButton.textContent = playing ? '❚❚' : '▶'
    this.playButton.setAttribute('aria-label', playing ? 'pause' : 'play')
    this.playButton.title = playing ? 'pause' : 'play (p)'
  }
}
customElements.define('mas-review-clip', ReviewClip)

/** The tag set's activity report charts, drawn by the server (…/report/{name}/?format=svg, the charts of
 * `mas report -o`): one picked, with a reviewer's filters (a strength threshold, the tags decided yes only). Drawn
 * when opened, and again on a choice or a decision while open. */
class ReportCharts extends HTMLElement {
  setup(tagSet) {
    this.tagSet = tagSet
    this.asked = 0
    this.chart = el(
      'select',
      { 'aria-label': 'chart', onchange: () => this.load() },
      ...Object.entries(REPORTS).map(([name, what]) => el('option', { value: name }, `${name}: ${what}`)),
    )
    this.strength = el('input', {
      type: 'number',
      min: 0,
      max: 1,
      step: 0.05,
      placeholder: 'any',
      'aria-label': 'minimum strength',
      onchange: () => this.load(),
    })
    this.reviewed = el('input', { type: 'checkbox', 'aria-label': 'reviewed yes only', onchange: () => this.load() })
    this.message = el('p', { class: 'error', role: 'status' })
    this.picture = el('img', { alt: '' })
    // the chart alone, to zoom on a phone (the server sends it sandboxed)
    this.full = el('a', { target: '_blank', rel: 'noopener', hidden: true }, 'open the chart alone')
    this.details = el(
      'details',
      { ontoggle: () => this.load() },
      el('summary', {}, 'Reports'),
      el(
        'div',
        { class: 'report-controls' },
        el('label', {}, 'chart ', this.chart),
        el('label', {}, 'strength ≥ ', this.strength),
        el(
          'label',
          { title: "only the tags whose reviewers' consensus is yes (density is estimated from every decision)" },
          this.reviewed,
          ' reviewed yes only',
        ),
        this.full,
      ),
      this.message,
      el('div', { class: 'chart' }, this.picture),
    )
    this.replaceChildren(this.details)
  }

  async load() {
    if (!this.details.open) return
    const name = this.chart.value
    this.reviewed.disabled = name === 'density'
    const query = new URLSearchParams({ format: 'svg' })
    if (this.strength.value.trim() !== '') query.set('minimumStrength', this.strength.value.trim())
    if (this.reviewed.checked && !this.reviewed.disabled) query.set('reviewed', 'yes')
    // answers may arrive out of order: only the last asked is shown
    const asked = ++this.asked
    const address = `${API}tagSet/${this.tagSet}/report/${name}/?${query}`
    const answer = await fetch(address, {
      credentials: 'same-origin',
      headers: { accept: 'image/svg+xml, application/json', 'x-requested-with': 'XMLHttpRequest' },
    }).then(
      async (res) => (res.ok ? res.blob() : refusal(res, await res.json().catch(() => null))),
      (err) => err,
    )
    if (asked !== this.asked) return
    const shown = this.picture.src
    if (answer instanceof Error) {
      // no chart rather than the last one under the filters that were refused
      this.message.textContent = `No chart: ${answer.message}`
      this.picture.removeAttribute('src')
      delete this.picture.dataset.report
      this.full.hidden = true
    } else {
      this.message.textContent = ''
      // an SVG shown as an image runs nothing it may hold
      this.picture.src = URL.createObjectURL(answer)
      this.picture.alt = `${name} chart: ${REPORTS[name]}`
      this.picture.dataset.report = name
      this.full.href = address
      this.full.hidden = false
    }
    if (shown.startsWith('blob:')) URL.revokeObjectURL(shown)
  }
}
customElements.define('mas-report-charts', ReportCharts)

class ReviewApp extends HTMLElement {
  async connectedCallback() {
    this.params = new URLSearchParams(location.search)
    const code = new URLSearchParams(location.hash.slice(1)).get('code')
    if (code) {
      // the code is used once and leaves the address bar at once
      history.replaceState(null, '', location.pathname + location.search)
      try {
        await call('POST', '/api-auth/code/', { code })
      } catch (e) {
        this.loginError = 'That link has expired: run mas review open again, or log in.'
      }
    }
    try {
      await call('GET', 'tagSet/?page_size=1')
    } catch (e) {
      if (e.status === 401 || e.status === 403) return this.showLogin()
      throw e
    }
    await this.start()
  }

  showLogin() {
    const user = el('input', { name: 'username', autocomplete: 'username', placeholder: 'username', required: true })
    const password = el('input', {
      name: 'password',
      type: 'password',
      autocomplete: 'current-password',
      placeholder: 'password',
      required: true,
    })
    const error = el('p', { class: 'error' }, this.loginError ?? '')
    const form = el(
      'form',
      {
        class: 'login',
        onsubmit: async (e) => {
          e.preventDefault()
          // the login form's CSRF cookie first, then the form
          await fetch('/api-auth/login/', { credentials: 'same-origin' })
          const body = new URLSearchParams({
            username: user.value,
            password: password.value,
            csrfmiddlewaretoken: cookie('csrftoken'),
          })
          const res = await fetch('/api-auth/login/', {
            method: 'POST',
            body,
            credentials: 'same-origin',
            headers: { accept: 'application/json' },
          })
          if (!res.ok) {
            error.textContent = 'Unable to log in with those credentials.'
            return
          }
          await this.start()
        },
      },
      el('h1', {}, 'mas — review tags'),
      user,
      password,
      el('button', { type: 'submit' }, 'Log in'),
      error,
    )
    this.replaceChildren(form)
    user.focus()
  }

  async start() {
    this.tagSets = (await call('GET', 'tagSet/?page_size=1000')).results
    this.tagSet = Number(this.params.get('tagSet')) || this.tagSets[0]?.id
    const choose = el(
      'select',
      {
        'aria-label': 'tag set',
        onchange: (e) => {
          this.params.set('tagSet', e.target.value)
          location.search = this.params.toString()
        },
      },
      ...this.tagSets.map((s) => el('option', { value: s.id, selected: s.id === this.tagSet }, s.name)),
    )
    const strategy = Object.hasOwn(STRATEGIES, this.params.get('strategy') ?? '')
      ? this.params.get('strategy')
      : Object.keys(STRATEGIES)[0]
    this.strategy = el(
      'select',
      { 'aria-label': 'strategy', onchange: () => this.chooseStrategy() },
      ...Object.entries(STRATEGIES).map(([s, what]) =>
        el('option', { value: s, title: what, selected: s === strategy }, s),
      ),
    )
    this.progress = el('span', { class: 'progress' })
    this.grid = el('div', { class: 'grid' })
    this.summary = el('div', { class: 'side' })
    this.legend = el('p', { class: 'help' })
    this.reports = el('mas-report-charts')
    this.replaceChildren(
      el(
        'header',
        {},
        el('h1', {}, 'Review tags'),
        choose,
        this.strategy,
        el('button', { type: 'button', onclick: () => this.loadBatch() }, 'Next batch'),
        this.progress,
      ),
      el('main', {}, this.legend, this.grid, this.summary, this.reports),
    )
    if (!this.tagSet) {
      this.grid.textContent = 'No tag set to review.'
      return
    }
    this.reports.setup(this.tagSet)
    const set = this.tagSets.find((s) => s.id === this.tagSet) ?? (await call('GET', `tagSet/${this.tagSet}/`))
    this.classes = set.library ? (await call('GET', `tagClass/?library=${set.library}&page_size=1000`)).results : []
    this.legend.replaceChildren(
      'Keys: ',
      ...[
        ['y', 'yes'],
        ['n', 'no'],
        ['u', 'unsure'],
        ['s', 'skip'],
        ['← →', 'move'],
        ['p', 'play'],
        ['1–9', 'no: another class'],
      ].flatMap(([k, what]) => [el('kbd', {}, k), ` ${what}  `]),
    )
    this.media = new Map()
    document.addEventListener('keydown', (e) => this.key(e))
    if (this.params.get('similarTo')) return this.startSimilar(Number(this.params.get('similarTo')), set)
    await this.loadBatch()
  }

  /** the media files of `ids` the page has not read yet, read */
  async readMedia(ids) {
    const files = [...new Set(ids)].filter((id) => !this.media.has(id))
    await Promise.all(files.map(async (id) => this.media.set(id, await call('GET', `mediaFile/${id}/`))))
  }

  /** to the windows most like `tag`, whose marks go to a tag set named after its class */
  openSimilar(tag) {
    const name = this.classes.find((c) => c.id === tag.tagClass)?.className ?? `class ${tag.tagClass}`
    this.params.set('similarTo', tag.id)
    this.params.set('into', `${name}, similar`)
    location.search = this.params.toString()
  }

  /** The windows of the library most like tag `id` (the tagged ones left out), to mark yes or no into a tag set. */
  async startSimilar(id, set) {
    const query = await call('GET', `tag/${id}/`)
    const className = this.classes.find((c) => c.id === query.tagClass)?.className ?? `class ${query.tagClass}`
    this.similar = {
      query,
      library: set.library,
      into: el('input', {
        'aria-label': 'tag set of the marked windows',
        value: this.params.get('into') ?? `${className}, similar`,
      }),
    }
    const back = el('a', { href: `?tagSet=${this.tagSet}` }, 'back to the queue')
    const train = el(
      'button',
      { type: 'button', class: 'train', onclick: () => this.train() },
      'Train from these marks',
    )
    this.querySelector('header').replaceChildren(
      el('h1', {}, `Like tag ${id} (${className})`),
      back,
      el('label', {}, 'marks go to ', this.similar.into),
      train,
      this.progress,
    )
    let found
    try {
      found = (await call('GET', `tag/${id}/similar/?k=${BATCH * 2}&exclude=tagged`)).results
    } catch (err) {
      this.grid.textContent = err.message
      return
    }
    await this.readMedia(found.map((w) => w.mediaFile))
    this.clips = found.map((w) => {
      const clip = el('mas-review-clip')
      clip.setup({
        tag: {
          id: null,
          mediaFile: w.mediaFile,
          startTime: w.startTime,
          endTime: w.endTime,
          minFrequency: query.minFrequency,
          maxFrequency: query.maxFrequency,
          tagClass: query.tagClass,
          strength: Math.max(0, Math.min(1, 1 - w.distance)),
        },
        mediaFile: this.media.get(w.mediaFile),
        tagSet: this.tagSet,
        classes: this.classes,
        tagSets: this.tagSets,
        className,
        decide: (c, d, tagClass) => this.decide(c, d, tagClass),
        focus: (c) => this.focus(c),
      })
      return clip
    })
    this.grid.replaceChildren(...this.clips)
    if (!this.clips.length)
      this.grid.textContent =
        'No window of the library is like this tag, or none is stored: run an EmbedAudio job over it.'
    this.focus(this.clips[0])
    this.showMarks()
  }

  /** the tag set the marks go to: the library's of that name, made when it has none */
  async marksTagSet() {
    const name = this.similar.into.value.trim() || 'similar'
    if (this.similar.marks?.name === name) return this.similar.marks.id
    const sets = (await call('GET', `tagSet/?library=${this.similar.library}&page_size=1000`)).results
    this.similar.marks =
      sets.find((s) => s.name === name) ?? (await call('POST', 'tagSet/', { name, library: this.similar.library }))
    return this.similar.marks.id
  }

  /** a window marked: made a machine tag of the marks' tag set (once), then the decision recorded on it */
  async markWindow(clip) {
    const t = clip.o.tag
    if (t.id) return t.id
    const made = await call('POST', 'tag/', {
      tagSet: await this.marksTagSet(),
      mediaFile: t.mediaFile,
      tagClass: t.tagClass,
      startTime: t.startTime,
      endTime: t.endTime,
      minFrequency: t.minFrequency,
      maxFrequency: t.maxFrequency,
      strength: t.strength,
      machineTagged: true,
    })
    t.id = made.id
    clip.dataset.tag = made.id
    return made.id
  }

  showMarks() {
    const decided = this.clips.filter((c) => c.hasAttribute('decision')).length
    this.progress.textContent = `${decided} of ${this.clips.length} windows marked`
  }

  /** a TrainClassifier job from the marks, its tags into a tag set named after the marks' */
  async train() {
    try {
      const marks = await this.marksTagSet()
      const name = `${this.similar.marks.name}, found`
      const sets = (await call('GET', `tagSet/?library=${this.similar.library}&page_size=1000`)).results
      const found =
        sets.find((s) => s.name === name) ?? (await call('POST', 'tagSet/', { name, library: this.similar.library }))
      const job = await call('POST', `tagSet/${marks}/train/`, { destinationTagSet: found.id })
      this.progress.textContent = `training: job ${job.id}; its tags go to tag set ${found.name}`
    } catch (err) {
      this.progress.textContent = `not started: ${err.message}`
    }
  }

  /** the queue in the chosen order, kept in the address (a reload or another tag set keeps it) */
  async chooseStrategy() {
    this.params.set('strategy', this.strategy.value)
    history.replaceState(null, '', `${location.pathname}?${this.params}`)
    await this.loadBatch()
  }

  async loadBatch() {
    const queue = await call('GET', `tagSet/${this.tagSet}/reviewQueue/?n=${BATCH}&strategy=${this.strategy.value}`)
    await this.readMedia(queue.results.map((t) => t.mediaFile))
    this.clips = queue.results.map((tag) => {
      const clip = el('mas-review-clip')
      clip.setup({
        tag,
        mediaFile: this.media.get(tag.mediaFile),
        tagSet: this.tagSet,
        classes: this.classes,
        tagSets: this.tagSets,
        className: this.classes.find((c) => c.id === tag.tagClass)?.className ?? `class ${tag.tagClass}`,
        decide: (c, d, tagClass) => this.decide(c, d, tagClass),
        focus: (c) => this.focus(c),
        findSimilar: (c) => this.openSimilar(c.o.tag),
      })
      return clip
    })
    this.grid.replaceChildren(...this.clips)
    if (!this.clips.length) this.grid.textContent = 'Nothing left to review in this tag set.'
    this.focus(this.clips[0])
    await this.refresh()
  }

  focus(clip) {
    if (!clip) return
    for (const c of this.clips) c.toggleAttribute('current', c === clip)
    this.current = clip
    clip.scrollIntoView({ block: 'nearest' })
  }

  move(by) {
    const i = this.clips.indexOf(this.current)
    this.focus(this.clips[Math.min(Math.max(i + by, 0), this.clips.length - 1)])
  }

  key(e) {
    if (
      !this.current ||
      e.ctrlKey ||
      e.metaKey ||
      e.altKey ||
      e.target instanceof HTMLSelectElement ||
      e.target instanceof HTMLInputElement
    )
      return
    // the reports' own keys (space opens them)
    if (e.target instanceof Element && e.target.closest('mas-report-charts')) return
    const k = e.key.toLowerCase()
    if (KEYS[k]) this.decide(this.current, KEYS[k])
    else if (k === 'arrowright' || k === 'arrowdown') this.move(1)
    else if (k === 'arrowleft' || k === 'arrowup') this.move(-1)
    else if (k === 'p' || k === ' ') this.current.play()
    else if (/^[1-9]$/.test(k)) {
      const other = this.classes.filter((c) => c.id !== this.current.o.tag.tagClass)[Number(k) - 1]
      if (other) this.decide(this.current, 'no', other.id)
      else return
    } else return
    e.preventDefault()
  }

  async decide(clip, decision, tagClass = null) {
    const next = this.clips[this.clips.indexOf(clip) + 1]
    if (clip === this.current && next) this.focus(next)
    clip.setAttribute('saving', '')
    try {
      const tag = this.similar ? await this.markWindow(clip) : clip.o.tag.id
      const saved = await call('POST', 'tagReview/', { tag, decision, tagClass })
      clip.show(saved.decision, saved.tagClass)
    } catch (err) {
      clip.verdict.textContent = `not saved: ${err.message}`
    } finally {
      clip.removeAttribute('saving')
    }
    if (this.similar) this.showMarks()
    else this.refresh()
  }

  /** the progress and the running estimate per class, from the server's summary */
  async refresh() {
    const s = await call('GET', `tagSet/${this.tagSet}/reviewSummary/`)
    const decided = this.clips.filter((c) => c.hasAttribute('decision')).length
    this.progress.textContent = `${decided} of ${this.clips.length} in this batch · ${s.decidedTags} of ${s.tags} tags decided`
    const rows = s.classes.map((k) =>
      el(
        'tr',
        { 'data-class': k.tagClass },
        el('td', {}, k.className),
        el('td', {}, k.tags),
        el('td', {}, k.consensus.yes),
        el('td', {}, k.consensus.no),
        el('td', {}, k.consensus.unsure),
        el('td', { class: 'precision' }, pct(k.thresholds[0].precision)),
        el('td', {}, k.at90 ? `≥ ${k.at90.threshold} (${k.at90.tags})` : '–'),
        el('td', {}, k.at95 ? `≥ ${k.at95.threshold} (${k.at95.tags})` : '–'),
      ),
    )
    this.summary.replaceChildren(
      el(
        'table',
        { class: 'summary' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['class', 'tags', 'yes', 'no', 'unsure', 'precision', '90% from (tags)', '95% from (tags)'].map((h) =>
              el('th', {}, h),
            ),
          ),
        ),
        el('tbody', {}, ...rows),
      ),
    )
    this.reports.load()
  }
}
customElements.define('mas-review-app', ReviewApp)
