import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { freePort, onPath, waitFor } from '@quire/datastore';
import { apiClient, expectOk, startTestStack, type ApiClient, type TestStack } from '@quire/testkit';

/** A request may take this long while a datastore is down: it must answer 503, not hang. */
const FAST_MS = 1_500;

/** A Redis of this test's own (never the machine's shared one), persisting to its own dir. */
function startOwnRedis(port: number, dir: string): ChildProcess {
  return spawn(
    onPath('redis-server')!,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
    {
      stdio: 'ignore',
    },
  );
}

/** Listens on `port` as soon as it is free (within a second); connections are held, never answered. */
async function holdPort(port: number): Promise<{ release(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  const deadline = Date.now() + 1_000;
  for (;;) {
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) break;
    if (Date.now() > deadline) throw new Error(`port ${port} did not come free`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    release: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function pidsOf(pattern: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Drives reads and writes of one space while `outage` runs: every answer is a 200 or a fast
 * 503 with `Retry-After: 1` (README, "Security and faults"), never a 500 or a hang; the last
 * title acknowledged with a 200 is the one that stays.
 */
async function throughOutage(api: ApiClient, spaceId: string, outage: () => Promise<void>) {
  const statuses: number[] = [];
  let acknowledged: string | undefined;
  let stop = false;
  const driver = (async () => {
    for (let i = 0; !stop && i < 2_000; i++) {
      const title = `Title ${i}`;
      const started = Date.now();
      const write = await api.patch(`/v1/spaces/${spaceId}`, { title });
      const wrote = Date.now();
      const read = await api.get(`/v1/spaces/${spaceId}`);
      const took = [wrote - started, Date.now() - wrote];
      for (const [j, response] of [write, read].entries()) {
        assert.ok([200, 503].includes(response.status), `answered ${response.status}: ${JSON.stringify(response.body)}`);
        assert.ok(took[j] < FAST_MS, `the ${j === 0 ? 'write' : 'read'} took ${took[j]} ms (${response.status}: ${JSON.stringify(response.body)})`);
        if (response.status === 503) assert.equal(response.headers.get('retry-after'), '1', `a 503 without Retry-After: 1 (${JSON.stringify(response.body)})`);
        statuses.push(response.status);
      }
      if (write.status === 200) acknowledged = title;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    await outage();
    // Serving again by itself: a run of successful writes and reads.
    await waitFor('the stack to serve again', async () => statuses.slice(-6).length === 6 && statuses.slice(-6).every((s) => s === 200), 60_000);
  } finally {
    stop = true;
    await driver;
  }
  return { statuses, acknowledged };
}

describe('faults: a datastore or Redis crash is a short outage of 503s, then recovery by itself', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let redisPort: number;
  let redisDir: string;
  let redis: ChildProcess;
  let spaceId: string;
  const created: string[] = [];

  beforeAll(async () => {
    redisPort = await freePort();
    redisDir = mkdtempSync(path.join(os.tmpdir(), 'quire-faults-redis-'));
    redis = startOwnRedis(redisPort, redisDir);
    // No MONGODB_URI: the stack starts and supervises its own datastore, as `npm start` does.
    stack = await startTestStack({ MONGODB_URI: '', REDIS_URL: `redis://127.0.0.1:${redisPort}` });
    admin = apiClient(stack.baseUrl, stack.adminToken);
    const orgId = expectOk(await admin.get('/v1/orgs')).items[0].id;
    for (let i = 0; i < 5; i++) created.push(expectOk(await admin.post(`/v1/orgs/${orgId}/spaces`, { title: `Kept ${i}` }), 201).id);
    spaceId = created[0];
  });

  afterAll(async () => {
    await stack?.stop();
    redis?.kill('SIGKILL');
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  });

  /** The port of the stack's datastore, from the state `npm start` writes. */
  const datastorePort = () => Number(new URL(JSON.parse(readFileSync(path.join(stack.dataDir, 'stack.json'), 'utf8')).mongodbUri).port);
  // The stack's FerretDB, found by its listen address (whatever its backend): never the
  // PostgreSQL server it stores into, which other stacks share.
  const datastorePids = () => pidsOf(`ferretdb .*--listen-addr=127\\.0\\.0\\.1:${datastorePort()}( |$)`);

  it('restarts a killed datastore; meanwhile 503s within a second; nothing acknowledged is lost', async () => {
    const pids = datastorePids();
    assert.equal(pids.length, 1, `the stack runs its own FerretDB (found ${pids.join(', ') || 'none'})`);
    const [before] = pids;
    const port = datastorePort();
    console.log(/datastore: .*/.exec(stack.output())?.[0] ?? 'datastore: not reported');
    const { statuses, acknowledged } = await throughOutage(admin, spaceId, async () => {
      process.kill(before, 'SIGKILL');
      // Hold the datastore's port for two seconds with a server that accepts and never
      // answers: the restarts fail meanwhile, so the outage lasts long enough to be seen.
      const squatter = await holdPort(port);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await squatter.release();
      await waitFor('a new datastore process', async () => datastorePids().some((pid) => pid !== before), 30_000);
    });
    assert.ok(statuses.includes(503), 'the outage was seen as 503s');
    assert.equal(expectOk(await admin.get(`/v1/spaces/${spaceId}`)).title, acknowledged);
    for (const [i, id] of created.entries()) if (i > 0) assert.equal(expectOk(await admin.get(`/v1/spaces/${id}`)).title, `Kept ${i}`);
  });

  it('rides out a Redis crash and restart the same way', async () => {
    const { statuses, acknowledged } = await throughOutage(admin, spaceId, async () => {
      redis.kill('SIGKILL');
      await new Promise((resolve) => redis.once('exit', resolve));
      // Down for a while: long enough for every service to notice.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      redis = startOwnRedis(redisPort, redisDir);
    });
    assert.ok(statuses.includes(503), 'the outage was seen as 503s');
    assert.equal(expectOk(await admin.get(`/v1/spaces/${spaceId}`)).title, acknowledged);
  });
});
