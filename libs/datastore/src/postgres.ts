import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { postgresAnswers, postgresWhere, withDatabase, withPostgres } from './pg-client';
import { startOwnPostgres } from './postgres-cluster';
import { waitFor } from './process';

/*
 * The PostgreSQL server FerretDB stores into (design.md §8), and each stack's database in it.
 * A stack's database is named from its data dir, so a restart finds its data again while two
 * stacks (and every test run) side by side never share one.
 */

/** The server a PostgreSQL-backed FerretDB uses, found or started for this stack. */
export interface PostgresServer {
  /** URL of a database to administer the server from (the stack's own database is created through it). */
  url: string;
  /** host:port, for logs. */
  where: string;
  /** Why this server was chosen, for logs. */
  reason: string;
  /** Stops it when this stack started it (a no-op for a server found running). */
  stop(): Promise<void>;
  detach(): void;
}

/** The default of a PostgreSQL installed on the machine: local, `postgres` user, trust auth. */
export const LOCAL_DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Stack databases start with this; only such databases are ever created or dropped. */
const DATABASE_PREFIX = 'quire_';

/** `quire_<12 hex digits of the hash of the absolute data dir>`: stable per data dir, distinct across them. */
export function stackDatabaseName(dataDir: string): string {
  return `${DATABASE_PREFIX}${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

/**
 * A server someone else runs: POSTGRES_URL when given (it must answer), else the local
 * default 127.0.0.1:5432 when it answers as `postgres` without a password.
 */
async function runningServer(env: NodeJS.ProcessEnv): Promise<{ url: string; reason: string } | undefined> {
  const given = env.POSTGRES_URL;
  if (given) {
    await waitFor(`PostgreSQL at ${postgresWhere(given)} (POSTGRES_URL)`, () => postgresAnswers(given), 10_000);
    return { url: given, reason: 'POSTGRES_URL' };
  }
  if (await postgresAnswers(LOCAL_DEFAULT_POSTGRES_URL)) return { url: LOCAL_DEFAULT_POSTGRES_URL, reason: 'the server answering on the local default port' };
  return undefined;
}

/**
 * The launcher's PostgreSQL, in the order of design.md §8: POSTGRES_URL → that server; one
 * answering on 127.0.0.1:5432 → that one; PostgreSQL server binaries installed → a cluster of
 * this stack's own inside `<dataDir>/postgres`; else none (FerretDB then falls back to SQLite).
 */
export async function findPostgresServer(dataDir: string, log: (line: string) => void, env = process.env): Promise<PostgresServer | undefined> {
  const running = await runningServer(env);
  if (running) return { ...running, where: postgresWhere(running.url), stop: async () => {}, detach: () => {} };
  try {
    return await startOwnPostgres(dataDir, log);
  } catch (error) {
    // Installed but unusable here (say, no user it may run as): the SQLite fallback still works.
    log(`cannot run a PostgreSQL cluster of our own: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** What a stack database records about its owner (as the database's comment), for the sweep below. */
interface Owner {
  dataDir: string;
  host: string;
}

/** Creates the stack's database when missing; answers the URL FerretDB should use. */
export async function ensureStackDatabase(serverUrl: string, dataDir: string): Promise<string> {
  const database = stackDatabaseName(dataDir);
  await withPostgres(serverUrl, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(database)}`);
    } catch (error) {
      if ((error as { code?: string }).code === '42P04') return; // created meanwhile by another process of this stack
      throw error;
    }
    const owner: Owner = { dataDir: path.resolve(dataDir), host: os.hostname() };
    await client.query(`COMMENT ON DATABASE ${quoteIdent(database)} IS ${quoteLiteral(JSON.stringify(owner))}`);
    // FerretDB prepares its statements with the field name as a parameter (`_jsonb->$1 @> $2`),
    // which no expression index matches: a session that switched to a generic plan while a table
    // was small keeps scanning it after it grew (measured: 30 ms instead of 4 ms for a point read
    // at 50,000 documents right after a bulk load). Plan every execution with its values.
    await client.query(`ALTER DATABASE ${quoteIdent(database)} SET plan_cache_mode = force_custom_plan`);
  });
  return withDatabase(serverUrl, database);
}

async function dropDatabase(client: Client, database: string): Promise<void> {
  // FORCE: a FerretDB killed a moment ago may still hold sessions the server has not reaped.
  await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
}

/**
 * Drops the database of the stack whose data dir this is, on the server the launcher would
 * use with `env` (POSTGRES_URL, else the local default). A cluster of the stack's own lives
 * inside the data dir and goes with it, so there is nothing to drop then. True when a server
 * was asked.
 */
export async function dropStackDatabase(dataDir: string, env = process.env): Promise<boolean> {
  const server = await runningServer(env).catch(() => undefined);
  if (!server) return false;
  await withPostgres(server.url, (client) => dropDatabase(client, stackDatabaseName(dataDir)));
  return true;
}

/**
 * `dropStackDatabase` for `exit` hooks, where nothing asynchronous runs any more: the same
 * call in a child process, waited for.
 */
export function dropStackDatabaseSync(dataDir: string, env = process.env): void {
  const script = `require(${JSON.stringify(__filename)}).dropStackDatabase(${JSON.stringify(dataDir)}).then(() => process.exit(0), () => process.exit(1))`;
  spawnSync(process.execPath, ['-e', script], { env, stdio: 'ignore', timeout: 15_000 });
}

/**
 * Drops the stack databases on this machine's server whose data dir was a temporary
 * directory of this host that no longer exists: what a test killed before its cleanup left
 * behind. Databases of data dirs that exist (running stacks, other test runs) are kept.
 */
export async function dropOrphanedDatabases(env = process.env): Promise<string[]> {
  const server = await runningServer(env).catch(() => undefined);
  if (!server) return [];
  return withPostgres(server.url, async (client) => {
    const { rows } = await client.query<{ datname: string; note: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname LIKE $1`,
      [`${DATABASE_PREFIX.replace(/_/g, '\\_')}%`],
    );
    const orphans = rows.filter((row) => isOrphan(row.datname, row.note)).map((row) => row.datname);
    for (const database of orphans) await dropDatabase(client, database);
    return orphans;
  });
}

function isOrphan(database: string, note: string | null): boolean {
  let owner: Partial<Owner>;
  try {
    owner = JSON.parse(note ?? '');
  } catch {
    return false; // not one we created
  }
  if (typeof owner.dataDir !== 'string' || owner.host !== os.hostname()) return false;
  const temporary = owner.dataDir.startsWith(path.resolve(os.tmpdir()) + path.sep);
  return temporary && stackDatabaseName(owner.dataDir) === database && !existsSync(owner.dataDir);
}
