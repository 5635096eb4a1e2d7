import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { onPath, repoRoot, spawnChild, stopChild, waitFor } from './process';

export interface MongoHandle {
  /** Base URI without a database name; services append their own. */
  uri: string;
  engine: 'external' | 'mongod' | 'ferretdb' | 'mongodb-memory-server';
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
 * with Go → start it; else mongodb-memory-server when it is installed.
 */
export async function startMongo({ dataDir, port, log = () => {} }: StartOptions): Promise<MongoHandle> {
  const given = process.env.MONGODB_URI;
  if (given) {
    await waitUntilPingable(given, 10_000);
    return { uri: given, engine: 'external', stop: async () => {}, detach: () => {} };
  }
  const mongod = onPath('mongod');
  if (mongod) {
    const dbPath = path.join(dataDir, 'mongod');
    mkdirSync(dbPath, { recursive: true });
    return launch('mongod', mongod, ['--dbpath', dbPath, '--port', String(port), '--bind_ip', '127.0.0.1', '--quiet'], port, log);
  }
  const ferretdb = findFerretdb(log);
  if (ferretdb) {
    const dir = path.join(dataDir, 'ferretdb');
    mkdirSync(dir, { recursive: true });
    const args = [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ];
    return launch('ferretdb', ferretdb, args, port, log);
  }
  return startMemoryServer(port);
}

function findFerretdb(log: (line: string) => void): string | undefined {
  const local = path.join(repoRoot(), '.tools', 'bin', 'ferretdb');
  if (existsSync(local)) return local;
  const onSystem = onPath('ferretdb');
  if (onSystem) return onSystem;
  if (!onPath('go')) return undefined;
  log('building FerretDB v1.24.2 with Go (first run only)…');
  const script = path.join(repoRoot(), 'scripts', 'install-ferretdb.sh');
  const out = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop();
}

async function launch(engine: MongoHandle['engine'], command: string, args: string[], port: number, log: (l: string) => void): Promise<MongoHandle> {
  // Telemetry stays off whatever the flags say (design.md §8).
  const { child, output } = spawnChild(command, args, { env: { ...process.env, DO_NOT_TRACK: '1' } });
  const uri = `mongodb://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  try {
    await waitFor(`${engine} on port ${port}`, async () => {
      if (exited) throw new Error(`${engine} exited: ${output()}`);
      return ping(uri);
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  log(`${engine} listening on 127.0.0.1:${port}`);
  return {
    uri,
    engine,
    stop: () => stopChild(child),
    detach() {
      child.unref();
      for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
      process.once('exit', () => child.kill('SIGTERM'));
    },
  };
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
  return { uri: server.getUri().replace(/\/$/, ''), engine: 'mongodb-memory-server', stop: async () => void (await server.stop()), detach: () => {} };
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

function waitUntilPingable(uri: string, timeoutMs: number): Promise<void> {
  return waitFor(`MongoDB at ${uri.replace(/\/\/[^@/]*@/, '//***@')}`, () => ping(uri), timeoutMs);
}
