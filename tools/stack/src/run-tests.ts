import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureRedis, freePort, repoRoot, startMongo } from '@quire/datastore';

/**
 * `npm test`: starts the datastore once (suites get their own databases in it), makes
 * sure Redis answers, then runs every compiled *.test.js with node's test runner.
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
  const redis = await ensureRedis(process.env.REDIS_URL);
  console.log(`[test] datastore: ${mongo.engine}; ${files.length} test files`);

  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, '--test-timeout=300000', ...files],
      { stdio: 'inherit', env: { ...process.env, QUIRE_TEST_MONGODB_URI: mongo.uri, REDIS_URL: redis.url, NODE_ENV: 'test' } },
    );
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  await mongo.stop();
  await redis.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
