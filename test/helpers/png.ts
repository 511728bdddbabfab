import { createCanvas, loadImage } from '@napi-rs/canvas'

/** The RGBA pixels of a PNG, decoded by the canvas library. */
export async function pixels(
  png: Buffer,
): Promise<{ width: number; height: number; at: (x: number, y: number) => number[] }> {
  const image = await loadImage(png)
  const canvas = createCanvas(image.width, image.height)
  const ctx = canvas.getContext('2d')
  ctx.drawImage(image, 0, 0)
  const data = ctx.getImageData(0, 0, image.width, image.height).data
  return {
    width: image.width,
    height: image.height,
    at: (x, y) => [...data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)],
  }
}
