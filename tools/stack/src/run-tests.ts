import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropOrphanedDatabases, dropStackDatabase, ensureRedis, freePort, repoRoot, startMongo } from '@quire/datastore';

/**
 * `npm test`: starts the datastore once (suites get their own databases in it), makes
 * sure Redis answers, then runs every compiled *.test.js with node's test runner; at the end
 * it removes that datastore, its PostgreSQL database included.
 */
function testFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current)) {
      const full = path.join(current, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.test.js')) found.push(full);
    }
  };
  walk(dir);
  return found;
}

async function main() {
  const root = repoRoot();
  const filter = process.argv.slice(2);
  const files = ['libs', 'services', 'tools']
    .flatMap((group) => readdirSync(path.join(root, group)).map((pkg) => path.join(root, group, pkg, 'dist')))
    .filter((dist) => statSync(dist, { throwIfNoEntry: false })?.isDirectory())
    .flatMap(testFiles)
    .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
    .sort();
  if (files.length === 0) throw new Error('no test files found: run npm run build first');

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-test-data-'));
  const mongo = await startMongo({ dataDir, port: await freePort(), log: (l) => console.log(`[test] ${l}`) });
  try {
    const redis = await ensureRedis(process.env.REDIS_URL);
    console.log(`[test] ${files.length} test files`);
    const code = await runTests(files, {
      QUIRE_TEST_MONGODB_URI: mongo.uri,
      QUIRE_TEST_FERRETDB_POSTGRES_URL: mongo.postgresUrl,
      REDIS_URL: redis.url,
    });
    await redis.stop();
    process.exitCode = code;
  } finally {
    await mongo.stop();
    await removeDatastore(dataDir, mongo.engine === 'ferretdb');
  }
}

/** Runs the files with node's test runner; Ctrl-C or SIGTERM stop it first, so the cleanup still runs. */
function runTests(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, '--test-timeout=300000', ...files],
      { stdio: 'inherit', env: { ...process.env, ...env, NODE_ENV: 'test' } },
    );
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
}

/**
 * Leaves nothing behind: the data dir, the run's PostgreSQL database, and those of test data
 * dirs that are gone (suites killed before their own cleanup).
 */
async function removeDatastore(dataDir: string, ferretdb: boolean): Promise<void> {
  if (ferretdb) {
    await dropStackDatabase(dataDir).catch((error) => console.error(`[test] could not drop the test database: ${error}`));
    const orphans = await dropOrphanedDatabases().catch(() => []);
    if (orphans.length) console.log(`[test] dropped ${orphans.length} database(s) of test data dirs that are gone: ${orphans.join(', ')}`);
  }
  rmSync(dataDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
