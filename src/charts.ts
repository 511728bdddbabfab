import { createRequire } from 'node:module'
import type { TopLevelSpec } from 'vega-lite'
import { chartSvg, FONT } from '../server/analysis/charts.js'

// Charts as PNG files (`mas report … -o`): the SVG of the chart (server/analysis/charts.ts, which the server answers
// `?format=svg` with), rasterised by resvg with the font shipped as a package (a machine may have no system fonts).
// resvg is loaded only when a chart is written (docs/decisions.md §22, §34).

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
