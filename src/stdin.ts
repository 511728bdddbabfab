import { readFile } from 'node:fs/promises'

// Reading input piped to the command: whole files, or a password.

export async function readAll(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c)
  return Buffer.concat(chunks).toString('utf8')
}

/** A file's text, or stdin's for `-`. */
export async function readInput(path: string): Promise<string> {
  return path === '-' ? readAll() : readFile(path, 'utf8')
}

/** A password piped on stdin: its first line, without the line ending. */
export async function readPassword(): Promise<string> {
  const text = await readAll()
  return text.split(/\r?\n/)[0]
}

/** A password for a new or changed account: from stdin, or asked twice on a terminal. */
export async function newPassword(fromStdin: boolean): Promise<string | undefined> {
  if (fromStdin) return readPassword()
  if (!process.stdin.isTTY) return undefined
  const { password } = await import('@inquirer/prompts')
  const first = await password({ message: 'New password:', mask: true }, { output: process.stderr })
  const again = await password({ message: 'Repeat it:', mask: true }, { output: process.stderr })
  if (first !== again) throw new Error('The passwords differ')
  return first
}
