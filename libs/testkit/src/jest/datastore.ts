import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropOrphanedDatabases, dropStackDatabase, ensureRedis, freePort, startMongo, type MongoHandle, type RedisHandle } from '@quire/datastore';
import { stopSharedStacks } from '../shared-stack';

/**
 * The datastore of a jest run (`npm test`): started once in jest's global setup, before the
 * workers exist, so they inherit its address (QUIRE_TEST_MONGODB_URI, and the rest) from the
 * environment; suites get their own databases in it (testEnvironment). Removed, its PostgreSQL
 * database included, by the global teardown, or on Ctrl-C / SIGTERM, which jest itself does not
 * clean up after.
 */
interface Run {
  dataDir: string;
  mongo: MongoHandle;
  redis: RedisHandle;
  /** The environment variables as they were, restored at the end (watch mode starts again). */
  previous: Record<string, string | undefined>;
  onSignal: (signal: NodeJS.Signals) => void;
  stopping?: Promise<void>;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const log = (line: string) => console.log(`[test] ${line}`);

/** Jest loads the setup and the teardown files apart: the run they share is kept on the global object. */
const key = Symbol.for('quire.testkit.jest-datastore');
const state = globalThis as { [key]?: Run };

export async function startTestDatastore(): Promise<void> {
  process.env.NODE_ENV = 'test';
  // Started already: by an earlier project of this run (each project calls the global setup),
  // or given by whoever runs jest. Either way not ours to start, nor to remove.
  if (state[key] || process.env.QUIRE_TEST_MONGODB_URI) return;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-test-data-'));
  let mongo: MongoHandle | undefined;
  let redis: RedisHandle;
  try {
    mongo = await startMongo({ dataDir, port: await freePort(), log });
    // A Redis of the run's own on a free port (REDIS_URL picks another), not whatever answers on
    // 6379: concurrent runs on one machine would share it, and its keys.
    redis = await ensureRedis(process.env.REDIS_URL || `redis://127.0.0.1:${await freePort()}`);
  } catch (error) {
    await mongo?.stop();
    await removeDatastore(dataDir, mongo?.engine === 'ferretdb');
    throw error;
  }
  const env: Record<string, string | undefined> = {
    QUIRE_TEST_MONGODB_URI: mongo.uri,
    QUIRE_TEST_FERRETDB_POSTGRES_URL: mongo.postgresUrl,
    REDIS_URL: redis.url,
  };
  const previous: Run['previous'] = {};
  for (const [name, value] of Object.entries(env)) {
    previous[name] = process.env[name];
    setEnv(name, value);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the test workers and their stacks, removing the test datastore`);
    // A signal to jest alone (not to its process group, as Ctrl-C sends) would orphan the workers,
    // and with them the stacks they run; a worker gone, its stacks stop (testkit's startTestStack).
    for (const pid of jestWorkers()) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone already
      }
    }
    void stopSharedStacks()
      .finally(() => stopTestDatastore())
      .finally(() => process.exit(128 + (os.constants.signals[signal] ?? 1)));
  };
  for (const signal of SIGNALS) process.once(signal, onSignal);
  state[key] = { dataDir, mongo, redis, previous, onSignal };
}

/** Removes what startTestDatastore started (nothing when it started nothing); once, however often called. */
export async function stopTestDatastore(): Promise<void> {
  const run = state[key];
  if (!run) return;
  run.stopping ??= (async () => {
    for (const signal of SIGNALS) process.removeListener(signal, run.onSignal);
    try {
      await run.redis.stop();
    } finally {
      await run.mongo.stop();
      await removeDatastore(run.dataDir, run.mongo.engine === 'ferretdb');
      for (const [name, value] of Object.entries(run.previous)) setEnv(name, value);
      delete state[key];
    }
  })();
  await run.stopping;
}

/** This process's jest workers (children running jest-worker), where /proc tells (Linux). */
function jestWorkers(): number[] {
  const parentOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.filter((pid) => parentOf(read(`/proc/${pid}/stat`)) === process.pid && read(`/proc/${pid}/cmdline`).includes('jest-worker')).map(Number);
}

function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/**
 * Leaves nothing behind: the data dir, the run's PostgreSQL database, and those of test data
 * dirs that are gone (suites killed before their own cleanup).
 */
async function removeDatastore(dataDir: string, ferretdb: boolean): Promise<void> {
  if (ferretdb) {
    await dropStackDatabase(dataDir).catch((error) => console.error(`[test] could not drop the test database: ${error}`));
    const orphans = await dropOrphanedDatabases().catch(() => []);
    if (orphans.length) log(`dropped ${orphans.length} database(s) of test data dirs that are gone: ${orphans.join(', ')}`);
  }
  rmSync(dataDir, { recursive: true, force: true });
}
