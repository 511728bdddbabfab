import { createHash } from 'node:crypto'

// The benchmark data set's fixed names: the seed writes them, the benchmarks
// find everything else through the API as these users.

export interface BenchUser {
  username: string
  password: string
  token: string
  admin: boolean
}

/** A 40-hex token derived from the username, so a seeded database needs no lookup to be used. */
const tokenOf = (username: string) => createHash('sha1').update(`mas-bench-token:${username}`).digest('hex')

const user = (username: string, admin = false): BenchUser => ({
  username,
  password: `${username}-password`,
  token: tokenOf(username),
  admin,
})

export const OWNER = user('bench-owner')
export const GRANTEE = user('bench-grantee')
export const ADMIN = user('bench-admin', true)
export const USERS = [OWNER, GRANTEE, ADMIN]

export const NAMES = {
  library: 'bench library',
  smallLibrary: 'bench small library',
  tagSet: 'bench tags',
  /** POST benchmarks write here, so the read benchmarks' tag set keeps its size across runs */
  writeTagSet: 'bench writes',
  project: 'bench project',
}

export const SIZES = {
  mediaFiles: 2000,
  metadataPerFile: 5,
  tagClasses: 10,
  tags: 100_000,
  projectFiles: 500,
  jobs: 50,
  parametersPerJob: 4,
  smallLibraryFiles: 20,
}
