import { readdir, stat } from 'node:fs/promises'
import { basename, join, relative } from 'node:path'
import { audacityMediaName, detectTable, type TableFormat } from './detectorFormats.js'
import { readHead } from './tableReader.js'
import type { TableSource } from './tableRows.js'

// The tables a `mas tag import` reads: the files named, and the files below the folders named (docs/decisions.md
// §32), each with its format: --format, or what its beginning shows. Below a folder, a file that holds no table
// mas reads (a README, BirdNET's settings file) is passed over and said so; a file named is read as mas's CSV
// when nothing else matches, so its errors are shown.

/** File name endings of the tables looked for below a folder. */
const TABLE_FILES = /\.(csv|txt|tsv|json|ndjson)$/i

export interface Passed {
  name: string
  why: string
}

/** The sources of the arguments (`-`: standard input, already spooled to `stdin`), and the files passed over. */
export async function tableSources(
  args: string[],
  opts: { format?: TableFormat; mediaFile?: string; stdin?: string },
): Promise<{ sources: TableSource[]; passed: Passed[] }> {
  const sources: TableSource[] = []
  const passed: Passed[] = []
  for (const arg of args) {
    if (arg === '-') {
      sources.push(await source('stdin', opts.stdin!, basename('stdin'), opts))
      continue
    }
    const info = await stat(arg)
    if (!info.isDirectory()) {
      sources.push(await source(arg, arg, basename(arg), opts))
      continue
    }
    const { tables, others } = await tableFilesBelow(arg)
    for (const file of others) passed.push({ name: file, why: 'not a table file (.csv, .txt, .tsv, .json, .ndjson)' })
    for (const file of tables) {
      const below = relative(arg, file)
      const found = { ...(await source(file, file, below, opts)), belowFolder: true }
      if (opts.format === undefined && found.format === 'csv' && !(await looksLikeMasCsv(file))) {
        passed.push({ name: file, why: 'no table mas reads (its first line is no header of a known format)' })
        continue
      }
      sources.push(found)
    }
  }
  return { sources, passed }
}

/** A source and its format; an Audacity label track names its media file by its path below the folder (or its name). */
async function source(
  name: string,
  file: string,
  below: string,
  opts: { format?: TableFormat; mediaFile?: string },
): Promise<TableSource> {
  const format = opts.format ?? detectTable(await readHead(file))
  const mediaFile =
    opts.mediaFile ?? (format === 'audacity' && name !== 'stdin' ? `name:${audacityMediaName(below)}` : undefined)
  return { name, file, format, mediaFile }
}

async function looksLikeMasCsv(file: string): Promise<boolean> {
  const first = (await readHead(file, 4096)).split(/\r?\n/)[0] ?? ''
  return /(^|,)\s*"?mediaFile"?\s*(,|$)/.test(first) || /(^|,)\s*"?startTime"?\s*(,|$)/.test(first)
}

/** The table files (.csv, .txt, .tsv, .json, .ndjson) below a folder, at any depth, in name order, and the others. */
export async function tableFilesBelow(dir: string): Promise<{ tables: string[]; others: string[] }> {
  const files = await filesBelow(dir)
  return { tables: files.filter((f) => TABLE_FILES.test(f)), others: files.filter((f) => !TABLE_FILES.test(f)) }
}

/** The files below a folder, at any depth, in name order (hidden ones left out). */
async function filesBelow(dir: string): Promise<string[]> {
  const out: string[] = []
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )
  for (const e of entries) {
    if (e.name.startsWith('.')) continue
    const path = join(dir, e.name)
    if (e.isDirectory()) out.push(...(await filesBelow(path)))
    else if (e.isFile()) out.push(path)
  }
  return out
}
