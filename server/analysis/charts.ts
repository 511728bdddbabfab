import type { TopLevelSpec } from 'vega-lite'

// Charts as SVG: a Vega-Lite specification compiled by vega-lite and rendered to SVG by vega without a browser or
// canvas. The server answers a report's chart so (`?format=svg`), and `mas report … -o` rasterises the same SVG to
// PNG (src/charts.ts). vega and vega-lite are loaded only when a chart is drawn (docs/decisions.md §22, §34).

export const FONT = 'DejaVu Sans'
/** colours a reader with a common colour vision deficiency tells apart (Okabe and Ito) */
export const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']

/** what every chart shares: white ground, the font, a readable size, the colours */
const CONFIG = {
  background: '#ffffff',
  padding: 16,
  // a browser without DejaVu Sans (the review page's charts) takes Verdana, of nearly its widths, or its own sans-serif
  font: `${FONT}, Verdana, sans-serif`,
  range: { category: COLOURS },
  axis: { labelFontSize: 12, titleFontSize: 13, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 12, titleFontSize: 13 },
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
