import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { ensureStackDatabase, findPostgresServer, stackDatabaseName } from './postgres';
import { findGoTool, onPath, spawnChild, stopChild, superviseChild, waitFor } from './process';

export interface MongoHandle {
  /** Base URI without a database name; services append their own. */
  uri: string;
  engine: 'external' | 'mongod' | 'ferretdb' | 'mongodb-memory-server';
  /** Where FerretDB stores (for an external datastore: postgresql when QUIRE_FERRETDB_POSTGRES_URL says so). */
  backend?: 'postgresql' | 'sqlite';
  /** The PostgreSQL database FerretDB stores into (URL with the database), when the backend is PostgreSQL. */
  postgresUrl?: string;
  /** Which engine runs, where, and why: one line for logs. */
  description: string;
  stop(): Promise<void>;
  /** Lets this process exit while the datastore runs; it is killed when this process exits. */
  detach(): void;
}

interface StartOptions {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}

/**
 * Starts (or finds) the MongoDB-protocol datastore, in the order design.md §8 agreed:
 * MONGODB_URI given → use it; mongod on PATH → start it; FerretDB on PATH or buildable
 * with Go → start it on PostgreSQL (POSTGRES_URL, else the server on 127.0.0.1:5432, else a
 * cluster of its own when the server binaries are installed), else on SQLite; else
 * mongodb-memory-server when it is installed. Logs which one runs and why.
 */
export async function startMongo({ dataDir, port, log = () => {} }: StartOptions): Promise<MongoHandle> {
  const handle = await chooseAndStart(dataDir, port, log);
  log(`datastore: ${handle.description}`);
  return handle;
}

async function chooseAndStart(dataDir: string, port: number, log: (line: string) => void): Promise<MongoHandle> {
  const given = process.env.MONGODB_URI;
  if (given) {
    await waitUntilPingable(given, 10_000);
    const postgresUrl = process.env.QUIRE_FERRETDB_POSTGRES_URL || undefined;
    const description = `the MongoDB at ${redact(given)} (MONGODB_URI)`;
    return {
      uri: given,
      engine: 'external',
      backend: postgresUrl ? 'postgresql' : undefined,
      postgresUrl,
      description,
      stop: async () => {},
      detach: () => {},
    };
  }
  const mongod = onPath('mongod');
  if (mongod) {
    const dbPath = path.join(dataDir, 'mongod');
    mkdirSync(dbPath, { recursive: true });
    const args = ['--dbpath', dbPath, '--port', String(port), '--bind_ip', '127.0.0.1', '--quiet'];
    return { ...(await launch('mongod', mongod, args, port, log)), engine: 'mongod', description: `mongod at 127.0.0.1:${port} (mongod on PATH)` };
  }
  const ferretdb = findGoTool('ferretdb', log);
  if (ferretdb) return startFerretdb(ferretdb, dataDir, port, log);
  return startMemoryServer(port);
}

/**
 * FerretDB's flags whatever the backend: loopback only, no debug listener, telemetry off
 * (design.md §8), and its state file (state.json) in the data dir, not in the working directory.
 */
function ferretdbFlags(port: number, dataDir: string): string[] {
  const stateDir = path.join(dataDir, 'ferretdb-state');
  mkdirSync(stateDir, { recursive: true });
  return [`--listen-addr=127.0.0.1:${port}`, '--debug-addr=-', '--telemetry=disable', '--log-level=error', `--state-dir=${stateDir}`];
}

async function startFerretdb(binary: string, dataDir: string, port: number, log: (line: string) => void): Promise<MongoHandle> {
  const server = await findPostgresServer(dataDir, log);
  if (!server) {
    const dir = path.join(dataDir, 'ferretdb');
    mkdirSync(dir, { recursive: true });
    const engine = await launch('ferretdb', binary, ['--handler=sqlite', `--sqlite-url=file:${dir}/`, ...ferretdbFlags(port, dataDir)], port, log);
    const why = 'no PostgreSQL at hand: no POSTGRES_URL, none answering on 127.0.0.1:5432, no cluster of its own';
    return { ...engine, engine: 'ferretdb', backend: 'sqlite', description: `FerretDB on SQLite in ${dir} (${why})` };
  }
  try {
    const postgresUrl = await ensureStackDatabase(server.url, dataDir);
    const engine = await launchOnPostgres(binary, postgresUrl, dataDir, port, log);
    return {
      ...engine,
      engine: 'ferretdb',
      backend: 'postgresql',
      postgresUrl,
      description: `FerretDB on PostgreSQL at ${server.where} (database ${stackDatabaseName(dataDir)}; ${server.reason})`,
      // FerretDB first: PostgreSQL then has no session left to end.
      stop: async () => {
        await engine.stop();
        await server.stop();
      },
      detach: () => {
        engine.detach();
        server.detach();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

function launchOnPostgres(binary: string, postgresUrl: string, dataDir: string, port: number, log: (line: string) => void): Promise<Launched> {
  // The URL (it may hold a password) goes by environment, which other users cannot read, not
  // by a flag every local user sees in the process list: same as --postgresql-url.
  return launch('ferretdb', binary, ['--handler=postgresql', ...ferretdbFlags(port, dataDir)], port, log, { FERRETDB_POSTGRESQL_URL: postgresUrl });
}

/**
 * One more FerretDB process over a PostgreSQL database another one already serves (FerretDB is
 * stateless: several of them over one database is how a cluster runs it), on `port`.
 */
export async function startFerretdbOn(postgresUrl: string, { dataDir, port, log = () => {} }: StartOptions): Promise<MongoHandle> {
  const binary = findGoTool('ferretdb', log);
  if (!binary) throw new Error('FerretDB is not installed (scripts/install-ferretdb.sh)');
  const engine = await launchOnPostgres(binary, postgresUrl, dataDir, port, log);
  return { ...engine, engine: 'ferretdb', backend: 'postgresql', postgresUrl, description: `FerretDB at 127.0.0.1:${port} over ${redact(postgresUrl)}` };
}

type Launched = Pick<MongoHandle, 'uri' | 'stop' | 'detach'>;

async function launch(engine: string, command: string, args: string[], port: number, log: (l: string) => void, env: NodeJS.ProcessEnv = {}): Promise<Launched> {
  // Telemetry stays off whatever the flags say (design.md §8).
  const spawnEngine = () => spawnChild(command, args, { env: { ...process.env, ...env, DO_NOT_TRACK: '1' } });
  const first = spawnEngine();
  const uri = `mongodb://127.0.0.1:${port}`;
  let exited = false;
  first.child.once('exit', () => {
    exited = true;
  });
  try {
    await waitFor(`${engine} on port ${port}`, async () => {
      if (exited) throw new Error(`${engine} exited: ${first.output()}`);
      return ping(uri);
    });
  } catch (error) {
    await stopChild(first.child);
    throw error;
  }
  log(`${engine} listening on 127.0.0.1:${port}`);
  // From here on the datastore is supervised: a crash is followed by a restart on the same
  // port and files, and the services reconnect by themselves (they answer 503 meanwhile).
  const supervisor = superviseChild(engine, first, spawnEngine, log);
  return { uri, stop: () => supervisor.stop(), detach: () => supervisor.detach() };
}

async function startMemoryServer(port: number): Promise<MongoHandle> {
  const name = 'mongodb-memory-server-core';
  let module: { MongoMemoryServer: { create(o: unknown): Promise<{ getUri(): string; stop(): Promise<boolean> }> } };
  try {
    module = await import(name);
  } catch {
    throw new Error('no datastore: set MONGODB_URI, put mongod or ferretdb on PATH, install Go, or install mongodb-memory-server-core');
  }
  const server = await module.MongoMemoryServer.create({ instance: { port, ip: '127.0.0.1' } });
  const uri = server.getUri().replace(/\/$/, '');
  const description = `mongodb-memory-server at 127.0.0.1:${port} (no mongod, no FerretDB and no Go to build it)`;
  return { uri, engine: 'mongodb-memory-server', description, stop: async () => void (await server.stop()), detach: () => {} };
}

async function ping(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => {});
  }
}

const redact = (uri: string) => uri.replace(/\/\/[^@/]*@/, '//***@');

function waitUntilPingable(uri: string, timeoutMs: number): Promise<void> {
  return waitFor(`MongoDB at ${redact(uri)}`, () => ping(uri), timeoutMs);
}
