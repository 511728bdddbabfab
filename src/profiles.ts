import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

// The profile store: `<configDir>/config.json`, {profiles: {NAME: {server, username, token}}}.
// Written whole to a temporary file and renamed over the old one, so a crash never
// leaves a half-written file; mode 0600 in a 0700 directory because it holds tokens.

export interface Profile {
  server: string
  username?: string
  token?: string
}
export interface ProfileFile {
  profiles: Record<string, Profile>
}

export const DEFAULT_PROFILE = 'default'

export function profilePath(configDir: string): string {
  return join(configDir, 'config.json')
}

export async function readProfiles(configDir: string): Promise<ProfileFile> {
  let text: string
  try {
    text = await readFile(profilePath(configDir), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} }
    throw err
  }
  try {
    const data = JSON.parse(text) as Partial<ProfileFile> | null
    const profiles =
      data && typeof data === 'object' && data.profiles && typeof data.profiles === 'object' ? data.profiles : {}
    return { ...data, profiles }
  } catch {
    throw new Error(`The profile file ${profilePath(configDir)} is not valid JSON; fix or delete it.`)
  }
}

export async function writeProfiles(configDir: string, data: ProfileFile): Promise<void> {
  await mkdir(configDir, { recursive: true, mode: 0o700 })
  await chmod(configDir, 0o700)
  const target = profilePath(configDir)
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    await writeFile(temp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600, flag: 'wx' })
    await rename(temp, target)
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
}

export async function readProfile(configDir: string, name: string): Promise<Profile | undefined> {
  return (await readProfiles(configDir)).profiles[name]
}

export async function saveProfile(configDir: string, name: string, profile: Profile): Promise<void> {
  const data = await readProfiles(configDir)
  data.profiles[name] = profile
  await writeProfiles(configDir, data)
}

/** Forgets the token of a profile (keeping its server and username); false when there was none. */
export async function forgetToken(configDir: string, name: string): Promise<boolean> {
  const data = await readProfiles(configDir)
  const profile = data.profiles[name]
  if (!profile?.token) return false
  delete profile.token
  await writeProfiles(configDir, data)
  return true
}
