import { createRequire } from 'node:module'
import type * as CanvasModule from '@napi-rs/canvas'
import type { SKRSContext2D } from '@napi-rs/canvas'
import type { Spectrogram } from '../analysis/spectra.js'
import { ColumnFold } from './pictureColumns.js'

// A spectrogram as people read one (README, "Spectrograms"): the dB values in
// the viridis colour map, a time axis in seconds (or clock time when the
// recording's start is known), a frequency axis in kHz, and tags as labelled
// boxes. Drawn with @napi-rs/canvas (Skia) in DejaVu Sans from the
// dejavu-fonts-ttf package, so no system font is needed; the drawing library
// and the colour map are loaded with the first picture, not at server start.

export interface PictureTag {
  startTime: number
  endTime: number
  minFrequency: number
  maxFrequency: number
  label: string
}

export interface PictureOptions {
  /** the file's second at the left edge */
  start: number
  /** when the recording started (`YYYY-MM-DDThh:mm:ss`), for clock times on the time axis */
  realStartTime: string | null
  title: string
  tags: PictureTag[]
  /** dB below the loudest value that still get a colour (darker is the floor) */
  range?: number
}

const FONT = 'DejaVu Sans'

type Canvas = typeof CanvasModule
interface Tools {
  canvas: Canvas
  viridis: Array<[number, number, number, number]>
}
let tools: Promise<Tools> | null = null

/** The drawing library with the font registered, and the colour map, loaded on first use. */
function drawingTools(): Promise<Tools> {
  tools ??= (async () => {
    const [canvas, { default: colormap }] = await Promise.all([import('@napi-rs/canvas'), import('colormap')])
    const path = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')
    if (!canvas.GlobalFonts.registerFromPath(path, FONT)) throw new Error(`the font ${path} could not be loaded`)
    return { canvas, viridis: colormap({ colormap: 'viridis', nshades: 256, format: 'rgba' }) }
  })().catch((e) => {
    tools = null
    throw e
  })
  return tools
}

const MARGIN = { left: 64, right: 64, top: 30, bottom: 46 }
/** the plot's width by default: as wide as the stretch's frames, within these */
const PLOT_WIDTH = { least: 480, most: 1600 }
/** a picture's width in pixels (the plot and the margins of its axes and colour bar): what may be asked, and
 * the default for a stretch of at least PLOT_WIDTH.most frames */
export const PICTURE_WIDTH = { min: 400, max: 8000, default: MARGIN.left + PLOT_WIDTH.most + MARGIN.right }
/** the frames of a stretch under which the default picture is narrower */
export const DEFAULT_PLOT_COLUMNS = PLOT_WIDTH.most

/** The plot's width in a picture `width` pixels wide; by default as wide as the stretch's frames, 480 to 1600 pixels. */
const plotWidthOf = (frames: number, width?: number) =>
  width !== undefined
    ? width - MARGIN.left - MARGIN.right
    : Math.max(PLOT_WIDTH.least, Math.min(PLOT_WIDTH.most, frames))

/** The columns a stretch of `frames` frames is drawn in: one a frame, or, when the plot is narrower, one a pixel. */
export function pictureColumns(frames: number, width?: number): number {
  return Math.max(1, Math.min(frames, plotWidthOf(frames, width)))
}

/** What a picture plots: columns × bands of dB values over `seconds`, as ColumnFold gives them. */
export interface PictureColumns {
  /** columns × bands, column by column */
  data: Float32Array
  columns: number
  bands: number
  /** band edges in Hz: bands + 1 values */
  edges: number[]
  seconds: number
}

const TIME_STEPS = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
  43200,
]
const FREQ_STEPS = [50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 50000]
const niceStep = (span: number, steps: number[], most: number) =>
  steps.find((s) => span / s <= most) ?? steps[steps.length - 1]

/** The picture of a whole spectrogram in memory, each column the loudest of the frames it covers. */
export function spectrogramPicture(s: Spectrogram, o: PictureOptions & { width?: number }): Promise<Buffer> {
  const fold = new ColumnFold(s.frames, pictureColumns(s.frames, o.width), s.bands)
  fold.add(0, s.data)
  return columnsPicture(
    {
      data: fold.result(),
      columns: fold.columns,
      bands: s.bands,
      edges: s.edges,
      seconds: s.frames / s.framesPerSecond,
    },
    o,
  )
}

/** The picture of a stretch's columns; `width` as given to pictureColumns. */
export async function columnsPicture(s: PictureColumns, o: PictureOptions & { width?: number }): Promise<Buffer> {
  const {
    canvas: { createCanvas },
    viridis,
  } = await drawingTools()
  const range = o.range ?? 80
  const columns = s.columns
  const plotW = plotWidthOf(columns, o.width)
  const plotH = Math.max(256, Math.min(512, s.bands * 2))
  const width = MARGIN.left + plotW + MARGIN.right
  const height = MARGIN.top + plotH + MARGIN.bottom
  const canvas = createCanvas(width, height)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#ffffff'
  ctx.fillRect(0, 0, width, height)

  // the spectrogram, one pixel per column and band, stretched over the plot
  let loudest = -Infinity
  for (const v of s.data) if (v > loudest) loudest = v
  const raster = createCanvas(columns, Math.max(1, s.bands))
  const rctx = raster.getContext('2d')
  const image = rctx.createImageData(columns, Math.max(1, s.bands))
  for (let x = 0; x < columns; x++) {
    for (let band = 0; band < s.bands; band++) {
      const v = s.data[x * s.bands + band]
      const level = Math.max(0, Math.min(255, Math.round(255 * (1 - (loudest - v) / range))))
      const [r, g, b] = viridis[Number.isFinite(level) ? level : 0]
      const at = ((s.bands - 1 - band) * columns + x) * 4
      image.data[at] = r
      image.data[at + 1] = g
      image.data[at + 2] = b
      image.data[at + 3] = 255
    }
  }
  rctx.putImageData(image, 0, 0)
  ctx.imageSmoothingEnabled = true
  ctx.drawImage(raster, MARGIN.left, MARGIN.top, plotW, plotH)

  const duration = s.seconds
  const minF = s.edges[0],
    maxF = s.edges[s.edges.length - 1]
  const xOf = (t: number) => MARGIN.left + ((t - o.start) / (duration || 1)) * plotW
  const yOf = (hz: number) => MARGIN.top + plotH - ((hz - minF) / (maxF - minF || 1)) * plotH

  drawTags(ctx, o.tags, xOf, yOf, { x0: MARGIN.left, x1: MARGIN.left + plotW, y0: MARGIN.top, y1: MARGIN.top + plotH })

  // frame and axes
  ctx.strokeStyle = '#000000'
  ctx.lineWidth = 1
  ctx.strokeRect(MARGIN.left - 0.5, MARGIN.top - 0.5, plotW + 1, plotH + 1)
  ctx.fillStyle = '#000000'
  ctx.font = `12px "${FONT}"`
  const tStep = niceStep(duration, TIME_STEPS, Math.max(2, Math.floor(plotW / 110)))
  ctx.textAlign = 'center'
  ctx.textBaseline = 'top'
  for (let t = Math.ceil(o.start / tStep - 1e-9) * tStep; t <= o.start + duration + 1e-9; t += tStep) {
    const x = Math.round(xOf(t)) + 0.5
    ctx.beginPath()
    ctx.moveTo(x, MARGIN.top + plotH)
    ctx.lineTo(x, MARGIN.top + plotH + 5)
    ctx.stroke()
    ctx.fillText(timeLabel(t, tStep, o.realStartTime), x, MARGIN.top + plotH + 7)
  }
  ctx.fillText(
    o.realStartTime
      ? `time of day (recorder's clock), from ${clock(o.realStartTime, o.start, 0).date}`
      : tStep >= 60
        ? 'time (h:mm)'
        : 'time (s)',
    MARGIN.left + plotW / 2,
    MARGIN.top + plotH + 26,
  )
  const fStep = niceStep(maxF - minF, FREQ_STEPS, Math.max(2, Math.floor(plotH / 40)))
  ctx.textAlign = 'right'
  ctx.textBaseline = 'middle'
  for (let f = Math.ceil(minF / fStep - 1e-9) * fStep; f <= maxF + 1e-9; f += fStep) {
    const y = Math.round(yOf(f)) + 0.5
    ctx.beginPath()
    ctx.moveTo(MARGIN.left - 5, y)
    ctx.lineTo(MARGIN.left, y)
    ctx.stroke()
    ctx.fillText(String(Number((f / 1000).toFixed(2))), MARGIN.left - 7, y)
  }
  ctx.save()
  ctx.translate(16, MARGIN.top + plotH / 2)
  ctx.rotate(-Math.PI / 2)
  ctx.textAlign = 'center'
  ctx.fillText('frequency (kHz)', 0, 0)
  ctx.restore()
  drawColourBar(ctx, viridis, range, {
    x0: MARGIN.left + plotW + 10,
    x1: MARGIN.left + plotW + 20,
    y0: MARGIN.top,
    y1: MARGIN.top + plotH,
  })
  ctx.font = `bold 13px "${FONT}"`
  ctx.textAlign = 'left'
  ctx.textBaseline = 'middle'
  ctx.fillText(o.title, MARGIN.left, MARGIN.top / 2)
  return canvas.toBuffer('image/png')
}

interface Box {
  x0: number
  x1: number
  y0: number
  y1: number
}

/** The colour map as a bar beside the plot, in dB below the loudest value (0 at the top), labelled every 20 dB. */
function drawColourBar(ctx: SKRSContext2D, colours: readonly (readonly number[])[], range: number, bar: Box): void {
  const height = bar.y1 - bar.y0
  for (let y = 0; y < height; y++) {
    const [r, g, b] = colours[Math.max(0, Math.min(255, Math.round(255 * (1 - y / Math.max(1, height - 1)))))]
    ctx.fillStyle = `rgb(${r}, ${g}, ${b})`
    ctx.fillRect(bar.x0, bar.y0 + y, bar.x1 - bar.x0, 1)
  }
  ctx.strokeStyle = '#000000'
  ctx.lineWidth = 1
  ctx.strokeRect(bar.x0 - 0.5, bar.y0 - 0.5, bar.x1 - bar.x0 + 1, height + 1)
  ctx.fillStyle = '#000000'
  ctx.font = `11px "${FONT}"`
  ctx.textAlign = 'left'
  ctx.textBaseline = 'middle'
  for (let db = 0; db <= range + 1e-9; db += 20)
    ctx.fillText(`-${db}`.replace('-0', '0'), bar.x1 + 4, bar.y0 + (db / range) * height)
  ctx.textBaseline = 'bottom'
  ctx.fillText('dB', bar.x0, bar.y0 - 3)
}

function drawTags(
  ctx: SKRSContext2D,
  tags: PictureTag[],
  xOf: (t: number) => number,
  yOf: (hz: number) => number,
  plot: Box,
): void {
  ctx.save()
  ctx.beginPath()
  ctx.rect(plot.x0, plot.y0, plot.x1 - plot.x0, plot.y1 - plot.y0)
  ctx.clip()
  ctx.font = `11px "${FONT}"`
  ctx.textBaseline = 'top'
  ctx.textAlign = 'left'
  const boxes: Array<Box & { label: string }> = []
  for (const tag of tags) {
    const whole = !(tag.maxFrequency > tag.minFrequency)
    const x0 = Math.max(plot.x0, xOf(tag.startTime)),
      x1 = Math.min(plot.x1, xOf(tag.endTime))
    const y0 = whole ? plot.y0 : Math.max(plot.y0, yOf(tag.maxFrequency))
    const y1 = whole ? plot.y1 : Math.min(plot.y1, yOf(tag.minFrequency))
    if (x1 <= x0 || y1 <= y0) continue
    ctx.lineWidth = 4
    ctx.strokeStyle = 'rgba(0, 0, 0, 0.8)'
    ctx.strokeRect(x0, y0, x1 - x0, y1 - y0)
    ctx.lineWidth = 2
    ctx.strokeStyle = '#ffffff'
    ctx.strokeRect(x0, y0, x1 - x0, y1 - y0)
    boxes.push({ x0, x1, y0, y1, label: tag.label })
  }
  // labels after every box, each where it covers no label placed before it
  const placed = placeLabels(
    boxes.map((b) => ({ ...b, width: ctx.measureText(b.label).width + 6 })),
    plot,
  )
  placed.forEach((at, i) => {
    ctx.fillStyle = 'rgba(0, 0, 0, 0.7)'
    ctx.fillRect(at.x, at.y, at.width, LABEL_HEIGHT)
    ctx.fillStyle = '#ffffff'
    ctx.fillText(boxes[i].label, at.x + 3, at.y + 2)
  })
  ctx.restore()
}

const LABEL_HEIGHT = 15

/** Where each box's label goes: at its top left corner, or, where that would cover a label placed before,
 * the first place below it (inside the box, then below it) that covers none; the top corner when none is free. */
export function placeLabels(
  boxes: Array<Box & { width: number }>,
  plot: Box,
): Array<{ x: number; y: number; width: number }> {
  const placed: Array<{ x: number; y: number; width: number }> = []
  const overlaps = (x: number, y: number, width: number) =>
    placed.some((p) => x < p.x + p.width && p.x < x + width && y < p.y + LABEL_HEIGHT && p.y < y + LABEL_HEIGHT)
  for (const b of boxes) {
    const x = b.x0 + 1
    let y = b.y0 + 1
    while (overlaps(x, y, b.width) && y + 2 * LABEL_HEIGHT + 1 <= plot.y1) y += LABEL_HEIGHT + 1
    if (overlaps(x, y, b.width)) y = b.y0 + 1
    placed.push({ x, y, width: b.width })
  }
  return placed
}

/** The date and time `offset` seconds after `start` seconds into a recording that began at `real`. */
function clock(real: string, start: number, offset: number): { date: string; time: string } {
  const t = new Date(new Date(`${real}Z`).getTime() + (start + offset) * 1000)
  const iso = t.toISOString()
  return { date: iso.slice(0, 10), time: iso.slice(11, 23) }
}

function timeLabel(t: number, step: number, real: string | null): string {
  const decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : 2
  if (!real && step >= 60) return `${Math.floor(t / 3600)}:${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}`
  if (!real) return `${t.toFixed(decimals)}`
  const { time } = clock(real, t, 0)
  return decimals ? time.slice(0, 9 + decimals) : time.slice(0, 8)
}
