import { createRequire } from 'node:module'
import { classColours, OTHER_COLOUR } from '../server/analysis/charts.js'

// A precision-recall curve per class as a PNG (`mas eval -o`): recall across, precision up, both 0 to 1, a line
// per class through the points the server gave (one per distinct strength), and a legend with each class's
// average precision, as wide as its longest name. A colour stands for one class, as in the reports' charts
// (server/analysis/charts.ts, classColours): past 18 classes, those of the fewest gold tags are drawn in thin grey as
// "N other classes" (the table and --json have each one's scores). With no curve to draw, the plot says so, as an
// empty report's chart does. Drawn with @napi-rs/canvas in DejaVu Sans, as the server draws spectrograms; the
// drawing library is loaded only when a curve is drawn (docs/decisions.md §22).

export interface CurveClass {
  className: string
  gold: number
  averagePrecision: number | null
  curve: Array<{ precision: number; recall: number | null }>
}

const FONT = 'DejaVu Sans'
const PLOT = 420
/** pixels between the frame and the data's 0 and 1 */
const INSET = 8
const MARGIN = { left: 64, right: 220, top: 40, bottom: 56 }
/** the legend's entries: from the plot's right edge, a line LEGEND_LINE long, then the label */
const LEGEND_LINE = { gap: 16, length: 18, label: 40 }
/** what the plot says when no class has a curve */
const NO_CURVES = 'No precision-recall curves to show'

/** The PNG bytes of the curves of `classes` (those without gold tags, which have no recall, are left out). */
export async function precisionRecallPng(title: string, classes: readonly CurveClass[]): Promise<Buffer> {
  const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas')
  const fontPath = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')
  if (!GlobalFonts.has(FONT) && !GlobalFonts.registerFromPath(fontPath, FONT))
    throw new Error(`the font ${fontPath} could not be loaded`)
  // a class with a curve has gold tags (a recall) and tags of the scored set (a point)
  const drawn = classes.filter((c) => c.curve.some((p) => p.recall !== null))
  const colours = classColours(new Map(drawn.map((c) => [c.className, c.gold])))
  const colourOf = new Map(colours.classes.map((name, i) => [name, colours.colours[i]]))
  const legend = [
    ...drawn
      .filter((c) => !colours.grouped.has(c.className))
      .map((c) => ({
        colour: colourOf.get(c.className) ?? OTHER_COLOUR,
        label: `${c.className}${c.averagePrecision === null ? '' : ` (AP ${c.averagePrecision.toFixed(2)})`}`,
      })),
    ...(colours.grouped.size ? [{ colour: OTHER_COLOUR, label: colours.otherLabel }] : []),
  ]
  const measure = createCanvas(1, 1).getContext('2d')
  measure.font = `12px "${FONT}"`
  const labelsWidth = Math.max(0, ...legend.map((l) => Math.ceil(measure.measureText(l.label).width)))
  const width = MARGIN.left + PLOT + Math.max(MARGIN.right, LEGEND_LINE.label + labelsWidth + 16),
    height = MARGIN.top + PLOT + MARGIN.bottom
  const canvas = createCanvas(width, height)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#ffffff'
  ctx.fillRect(0, 0, width, height)
  // the data sit INSET inside the frame, so that a line at precision 1 or recall 0 is not drawn on the frame itself
  const x = (recall: number) => MARGIN.left + INSET + recall * (PLOT - 2 * INSET)
  const y = (precision: number) => MARGIN.top + INSET + (1 - precision) * (PLOT - 2 * INSET)

  // grid, ticks and axes
  ctx.font = `12px "${FONT}"`
  ctx.fillStyle = '#000000'
  for (let i = 0; i <= 5; i++) {
    const v = i / 5
    ctx.strokeStyle = '#e0e0e0'
    ctx.lineWidth = 1
    ctx.beginPath()
    ctx.moveTo(x(v), y(0))
    ctx.lineTo(x(v), y(1))
    ctx.moveTo(x(0), y(v))
    ctx.lineTo(x(1), y(v))
    ctx.stroke()
    ctx.textAlign = 'center'
    ctx.textBaseline = 'top'
    ctx.fillText(v.toFixed(1), x(v), MARGIN.top + PLOT + 6)
    ctx.textAlign = 'right'
    ctx.textBaseline = 'middle'
    ctx.fillText(v.toFixed(1), MARGIN.left - 6, y(v))
  }
  ctx.strokeStyle = '#000000'
  ctx.strokeRect(MARGIN.left, MARGIN.top, PLOT, PLOT)
  ctx.textAlign = 'center'
  ctx.textBaseline = 'top'
  ctx.fillText('recall', x(0.5), MARGIN.top + PLOT + 26)
  ctx.save()
  ctx.translate(16, y(0.5))
  ctx.rotate(-Math.PI / 2)
  ctx.textBaseline = 'middle'
  ctx.fillText('precision', 0, 0)
  ctx.restore()
  ctx.font = `bold 13px "${FONT}"`
  ctx.textAlign = 'left'
  ctx.textBaseline = 'middle'
  ctx.fillText(title, MARGIN.left, MARGIN.top / 2)

  if (!drawn.length) {
    ctx.fillStyle = '#ffffff'
    ctx.fillRect(x(0.5) - 150, y(0.5) - 16, 300, 52)
    ctx.font = `16px "${FONT}"`
    ctx.fillStyle = '#666666'
    ctx.textAlign = 'center'
    ctx.fillText(NO_CURVES, x(0.5), y(0.5))
    ctx.font = `12px "${FONT}"`
    ctx.fillText('(no class has both gold tags and tags to score)', x(0.5), y(0.5) + 22)
    return canvas.toBuffer('image/png')
  }

  // a line per class, the grouped ones first (under the others) and thin
  const grouped = drawn.filter((c) => colours.grouped.has(c.className))
  for (const c of [...grouped, ...drawn.filter((c) => !colours.grouped.has(c.className))]) {
    const colour = colourOf.get(c.className) ?? OTHER_COLOUR
    ctx.strokeStyle = colour
    ctx.fillStyle = colour
    ctx.lineWidth = colours.grouped.has(c.className) ? 1 : 2
    ctx.beginPath()
    c.curve.forEach((p, k) => {
      const px = x(p.recall ?? 0),
        py = y(p.precision)
      if (k === 0) ctx.moveTo(px, py)
      else ctx.lineTo(px, py)
    })
    ctx.stroke()
    if (c.curve.length === 1) ctx.fillRect(x(c.curve[0].recall ?? 0) - 2, y(c.curve[0].precision) - 2, 4, 4)
  }
  // and a legend entry per colour
  ctx.font = `12px "${FONT}"`
  ctx.textAlign = 'left'
  legend.forEach((l, i) => {
    const ly = MARGIN.top + 10 + i * 18
    ctx.fillStyle = l.colour
    ctx.fillRect(MARGIN.left + PLOT + LEGEND_LINE.gap, ly - 1, LEGEND_LINE.length, 3)
    ctx.fillStyle = '#000000'
    ctx.fillText(l.label, MARGIN.left + PLOT + LEGEND_LINE.label, ly)
  })
  return canvas.toBuffer('image/png')
}
