import { createRequire } from 'node:module'

// A precision-recall curve per class as a PNG (`mas eval -o`): recall across, precision up, both 0 to 1, a line
// per class through the points the server gave (one per distinct strength), and a legend with each class's
// average precision. Drawn with @napi-rs/canvas in DejaVu Sans, as the server draws spectrograms; the drawing
// library is loaded only when a curve is drawn (docs/decisions.md §22).

export interface CurveClass {
  className: string
  averagePrecision: number | null
  curve: Array<{ precision: number; recall: number | null }>
}

const FONT = 'DejaVu Sans'
const PLOT = 420
const MARGIN = { left: 64, right: 220, top: 40, bottom: 56 }
/** colours a reader with a common colour vision deficiency tells apart (Okabe and Ito) */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']

/** The PNG bytes of the curves of `classes` (those without gold tags, which have no recall, are left out). */
export async function precisionRecallPng(title: string, classes: readonly CurveClass[]): Promise<Buffer> {
  const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas')
  const fontPath = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')
  if (!GlobalFonts.has(FONT) && !GlobalFonts.registerFromPath(fontPath, FONT))
    throw new Error(`the font ${fontPath} could not be loaded`)
  const width = MARGIN.left + PLOT + MARGIN.right,
    height = MARGIN.top + PLOT + MARGIN.bottom
  const canvas = createCanvas(width, height)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#ffffff'
  ctx.fillRect(0, 0, width, height)
  const x = (recall: number) => MARGIN.left + recall * PLOT
  const y = (precision: number) => MARGIN.top + (1 - precision) * PLOT

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
    ctx.fillText(v.toFixed(1), x(v), y(0) + 6)
    ctx.textAlign = 'right'
    ctx.textBaseline = 'middle'
    ctx.fillText(v.toFixed(1), x(0) - 6, y(v))
  }
  ctx.strokeStyle = '#000000'
  ctx.strokeRect(x(0), y(1), PLOT, PLOT)
  ctx.textAlign = 'center'
  ctx.textBaseline = 'top'
  ctx.fillText('recall', x(0.5), y(0) + 26)
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

  // a line per class, and its legend entry
  const drawn = classes.filter((c) => c.curve.some((p) => p.recall !== null))
  ctx.font = `12px "${FONT}"`
  drawn.forEach((c, i) => {
    const colour = COLOURS[i % COLOURS.length]
    ctx.strokeStyle = colour
    ctx.fillStyle = colour
    ctx.lineWidth = 2
    ctx.beginPath()
    c.curve.forEach((p, k) => {
      const px = x(p.recall ?? 0),
        py = y(p.precision)
      if (k === 0) ctx.moveTo(px, py)
      else ctx.lineTo(px, py)
    })
    ctx.stroke()
    if (c.curve.length === 1) ctx.fillRect(x(c.curve[0].recall ?? 0) - 2, y(c.curve[0].precision) - 2, 4, 4)
    const ly = MARGIN.top + 10 + i * 18
    ctx.fillRect(x(1) + 16, ly - 1, 18, 3)
    ctx.fillStyle = '#000000'
    const ap = c.averagePrecision === null ? '' : ` (AP ${c.averagePrecision.toFixed(2)})`
    ctx.fillText(`${c.className}${ap}`, x(1) + 40, ly)
  })
  return canvas.toBuffer('image/png')
}
