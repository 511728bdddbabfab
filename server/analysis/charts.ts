import type { TopLevelSpec } from 'vega-lite'

// Charts as SVG: a Vega-Lite specification compiled by vega-lite and rendered to SVG by vega without a browser or
// canvas. The server answers a report's chart so (`?format=svg`), and `mas report … -o` rasterises the same SVG to
// PNG (src/charts.ts). vega and vega-lite are loaded only when a chart is drawn (docs/decisions.md §22, §34).

export const FONT = 'DejaVu Sans'
/** colours a reader with a common colour vision deficiency tells apart (Okabe and Ito): a chart of up to 8 classes */
export const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']
/** a chart of 9 to 18 classes: d3's category20 (vega's scheme "category20") without its two greys, its nine strong
 * hues first and then their light ones, so that the first nine classes differ in hue and the next nine pair with
 * them only in lightness */
export const MANY_COLOURS = [
  ...['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#bcbd22', '#17becf'],
  ...['#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5', '#c49c94', '#f7b6d2', '#dbdb8d', '#9edae5'],
]
/** the classes grouped as "N other classes" (no class has a grey of its own) */
export const OTHER_COLOUR = '#999999'
/** the most characters of a class name in a legend or on an axis shown whole: vega, without a canvas, reckons a
 * text 0.8 × its font size wide per character, so 33 characters of 12 px (the longest scientific and common names
 * of birds) */
export const LABEL_LIMIT = 320

/** The classes a chart colours, with their colours. */
export interface ClassColours {
  /** the classes drawn each in its own colour, by name, then `otherLabel` when some are grouped */
  classes: string[]
  colours: string[]
  /** the classes drawn together as `otherLabel`: the rarest, when there are more classes than colours */
  grouped: Set<string>
  otherLabel: string
}

/** The colours of the classes of a chart, given each one's count (detections, gold tags). A colour stands for one
 * class only: up to 8 classes take Okabe and Ito's colours, up to 18 the 18 of MANY_COLOURS; with more, the 17 of
 * the highest counts keep a colour each and the others are drawn as one grey "N other classes" (a chart of 30 hues
 * could not be told apart; the report's table still has every class). Classes are in order of their names, so
 * that a class has the same colour in each chart of one report's scope. */
export function classColours(counts: ReadonlyMap<string, number>): ClassColours {
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const names = [...counts.keys()].sort(byName)
  if (names.length <= COLOURS.length)
    return { classes: names, colours: COLOURS.slice(0, names.length), grouped: new Set(), otherLabel: '' }
  if (names.length <= MANY_COLOURS.length)
    return { classes: names, colours: MANY_COLOURS.slice(0, names.length), grouped: new Set(), otherLabel: '' }
  const kept = new Set(
    [...names].sort((a, b) => counts.get(b)! - counts.get(a)! || byName(a, b)).slice(0, MANY_COLOURS.length - 1),
  )
  const grouped = new Set(names.filter((n) => !kept.has(n)))
  const otherLabel = `${grouped.size} other classes`
  return {
    classes: [...names.filter((n) => kept.has(n)), otherLabel],
    colours: [...MANY_COLOURS.slice(0, kept.size), OTHER_COLOUR],
    grouped,
    otherLabel,
  }
}

/** what every chart shares: white ground, the font, a readable size, the colours */
const CONFIG = {
  background: '#ffffff',
  padding: 16,
  // a browser without DejaVu Sans (the review page's charts) takes Verdana, of nearly its widths, or its own sans-serif
  font: `${FONT}, Verdana, sans-serif`,
  range: { category: COLOURS },
  axis: { labelFontSize: 12, titleFontSize: 13, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 12, titleFontSize: 13, labelLimit: LABEL_LIMIT },
  title: { fontSize: 15, anchor: 'start' as const },
  view: { stroke: '#bbbbbb' },
}

/** The SVG text of a Vega-Lite specification (with the shared configuration under its own). */
export async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const [vl, vega] = await Promise.all([import('vega-lite'), import('vega')])
  const withConfig = { ...spec, config: { ...CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec
  const compiled = vl.compile(withConfig).spec
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}
