import { createRequire } from 'node:module'
import type { TopLevelSpec } from 'vega-lite'

// Charts as PNG files (`mas report … -o`, `mas eval -o`): a Vega-Lite specification compiled by vega-lite, rendered
// to SVG by vega without a browser or canvas, and rasterised by resvg with the font shipped as a package (a machine
// may have no system fonts). The three libraries are loaded only when a chart is drawn (docs/decisions.md §22, §34).

export const FONT = 'DejaVu Sans'
/** colours a reader with a common colour vision deficiency tells apart (Okabe and Ito) */
export const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']

/** what every chart shares: white ground, the font, a readable size, the colours */
const CONFIG = {
  background: '#ffffff',
  padding: 16,
  font: FONT,
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

/** The PNG bytes of a Vega-Lite specification, at twice its size in pixels (sharp on a high-density screen). */
export async function chartPng(spec: TopLevelSpec): Promise<Buffer> {
  const svg = await chartSvg(spec)
  const { Resvg } = await import('@resvg/resvg-js')
  const fontFile = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: false, fontFiles: [fontFile], defaultFontFamily: FONT, sansSerifFamily: FONT },
  })
  return resvg.render().asPng()
}
