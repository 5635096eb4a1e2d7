import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { postgresAnswers, postgresWhere } from './pg-client';
import type { PostgresServer } from './postgres';
import { freePort, onPath, spawnChild, stopChild, superviseChild, waitFor } from './process';

/*
 * A PostgreSQL cluster of the stack's own, inside `<dataDir>/postgres`, for machines that
 * have the server binaries installed but no server running. It listens on 127.0.0.1 only
 * (unix sockets inside its directory) and wants a password kept in the data dir: a loopback
 * port is open to every local user, and a superuser session can run programs.
 */

/** Where Debian/Ubuntu install the server (not on PATH there); elsewhere initdb is on PATH. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/** The directory holding initdb and postgres: the newest version installed. */
export function postgresBinDir(): string | undefined {
  const hasServer = (dir: string) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'postgres'));
  const versions = existsSync(DEBIAN_ROOT) ? readdirSync(DEBIAN_ROOT).sort((a, b) => Number(b) - Number(a)) : [];
  const debian = versions.map((version) => path.join(DEBIAN_ROOT, version, 'bin')).find(hasServer);
  if (debian) return debian;
  const initdb = onPath('initdb');
  return initdb && hasServer(path.dirname(initdb)) ? path.dirname(initdb) : undefined;
}

interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

/**
 * PostgreSQL refuses to run as root (initdb too): then the cluster runs as an unprivileged
 * account, `postgres` where the package created it, else `nobody`. undefined: run as we are.
 */
function unprivilegedUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid: id('-u'), gid: id('-g'), name };
    } catch {
      // no such account: try the next one
    }
  }
  throw new Error('running as root and no unprivileged account (postgres, nobody) to run PostgreSQL as');
}

/** The superuser password of the cluster, generated once (readable by the cluster's account, for initdb). */
function clusterPassword(dataDir: string, user: RunAs | undefined): { file: string; password: string } {
  const file = path.join(dataDir, 'postgres-password');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  if (user) chownSync(file, user.uid, user.gid);
  return { file, password: readFileSync(file, 'utf8').trim() };
}

/** The cluster directory, owned by the account that runs it, reachable by it through the data dir. */
function prepareDirectory(dataDir: string, clusterDir: string, user: RunAs | undefined): void {
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (!user) return;
  chownSync(clusterDir, user.uid, user.gid);
  // The data dir is private (0700): let others pass through it (not list it) to reach the
  // cluster; every secret in it is a 0600 file.
  chmodSync(dataDir, statSync(dataDir).mode | 0o001);
  try {
    execFileSync('test', ['-w', clusterDir], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  } catch {
    throw new Error(`${user.name} cannot reach ${clusterDir} (a parent directory is closed to it)`);
  }
}

function initCluster(bin: string, clusterDir: string, passwordFile: string, user: RunAs | undefined, log: (line: string) => void): void {
  if (existsSync(path.join(clusterDir, 'PG_VERSION'))) return;
  log(`creating a PostgreSQL cluster in ${clusterDir}`);
  const args = ['-D', clusterDir, '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--auth=scram-sha-256', `--pwfile=${passwordFile}`];
  try {
    execFileSync(path.join(bin, 'initdb'), args, { uid: user?.uid, gid: user?.gid, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed: ${stderr || (error as Error).message}`);
  }
}

/** Unix sockets inside the cluster directory, unless that path is too long for a socket address. */
function socketDirectory(clusterDir: string, port: number): string {
  return `${clusterDir}/.s.PGSQL.${port}`.length < 100 ? clusterDir : '';
}

/**
 * Starts (creating it on first use) the stack's own cluster on a free loopback port,
 * supervised like the datastore: a crash is followed by a restart on the same port and files.
 * Throws when no server binaries are installed or the cluster cannot start.
 */
export async function startOwnPostgres(dataDir: string, log: (line: string) => void): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries installed');
  const clusterDir = path.join(path.resolve(dataDir), 'postgres');
  const user = unprivilegedUser();
  prepareDirectory(path.resolve(dataDir), clusterDir, user);
  const { file, password } = clusterPassword(dataDir, user);
  initCluster(bin, clusterDir, file, user, log);

  const port = await freePort();
  const args = ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDirectory(clusterDir, port)}`];
  const start = () => spawnChild(path.join(bin, 'postgres'), args, { uid: user?.uid, gid: user?.gid });
  const first = start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  try {
    await waitFor(`PostgreSQL on port ${port}`, async () => {
      if (first.child.exitCode !== null) throw new Error(`postgres exited: ${first.output()}`);
      return postgresAnswers(url);
    });
  } catch (error) {
    await stopChild(first.child, 5_000, 'SIGINT');
    throw error;
  }
  // SIGINT is PostgreSQL's fast shutdown: sessions are ended instead of waited for.
  const supervisor = superviseChild('postgres', first, start, log, 'SIGINT');
  return {
    url,
    where: postgresWhere(url),
    reason: `a cluster of its own in ${clusterDir} (no server running; binaries in ${bin})`,
    stop: () => supervisor.stop(),
    detach: () => supervisor.detach(),
  };
}
