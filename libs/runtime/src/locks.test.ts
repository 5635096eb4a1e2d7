import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { acquireRedisLock, LockBusyError, releaseRedisLock, withRedisLock } from './locks';
import { createLogger } from './logger';
import { createRedis, type RedisClient } from './redis';

// Not @quire/testkit's testEnvironment: testkit depends on this package, so using it here
// would make the build graph circular. The test runner exports REDIS_URL; a unique key
// prefix keeps this suite apart from others sharing the server.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `quire-test:${randomBytes(5).toString('hex')}:`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withRedisLock on a real Redis', () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = createRedis({ REDIS_URL, REDIS_PREFIX: PREFIX }, createLogger('locks-test', 'silent'));
  });
  afterAll(async () => {
    // keyPrefix is not applied to KEYS patterns nor to the names it returns: a raw client cleans up.
    const raw = createRedis({ REDIS_URL, REDIS_PREFIX: '' }, createLogger('locks-test', 'silent'));
    const keys = await raw.keys(`${PREFIX}*`);
    if (keys.length) await raw.del(...keys);
    raw.disconnect();
    redis.disconnect();
  });

  it('lets one holder at a time through a read-await-write sequence', async () => {
    await redis.set('counter', '0');
    const holders = 20;
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: holders }, () =>
        withRedisLock(
          redis,
          'lock:counter',
          async () => {
            most = Math.max(most, ++inside);
            const value = Number(await redis.get('counter'));
            // The gap that loses updates without the lock.
            await sleep(5);
            await redis.set('counter', String(value + 1));
            inside -= 1;
          },
          { ttlMs: 10_000, waitMs: 10_000 },
        ),
      ),
    );
    assert.equal(await redis.get('counter'), String(holders));
    assert.equal(most, 1);
    assert.equal(await redis.exists('lock:counter'), 0, 'released after the last holder');
  });

  it('returns the work result and releases when the work throws', async () => {
    assert.equal(await withRedisLock(redis, 'lock:result', async () => 42, { ttlMs: 5_000, waitMs: 1_000 }), 42);
    await assert.rejects(
      withRedisLock(redis, 'lock:result', async () => Promise.reject(new Error('boom')), { ttlMs: 5_000, waitMs: 1_000 }),
      /boom/,
    );
    assert.equal(await redis.exists('lock:result'), 0);
  });

  it('is released only by its holder', async () => {
    const token = await acquireRedisLock(redis, 'lock:owner', { ttlMs: 5_000, waitMs: 1_000 });
    assert.equal(await releaseRedisLock(redis, 'lock:owner', 'someone-else'), false);
    assert.equal(await redis.get('lock:owner'), token, 'another token cannot free it');
    assert.equal(await releaseRedisLock(redis, 'lock:owner', token), true);
    assert.equal(await redis.exists('lock:owner'), 0);
  });

  it('does not free the next holder lock when an expired holder finishes', async () => {
    let secondInside = false;
    const first = withRedisLock(
      redis,
      'lock:expired',
      async () => {
        await sleep(300); // outlives its 100 ms TTL
      },
      { ttlMs: 100, waitMs: 1_000 },
    );
    await sleep(150);
    const second = withRedisLock(
      redis,
      'lock:expired',
      async () => {
        secondInside = true;
        await sleep(300);
        // The first holder finished meanwhile: the lock must still be this holder's.
        assert.notEqual(await redis.get('lock:expired'), null);
      },
      { ttlMs: 5_000, waitMs: 1_000 },
    );
    await Promise.all([first, second]);
    assert.ok(secondInside);
  });

  it('gives up after waitMs with the given error (LockBusyError by default)', async () => {
    const token = await acquireRedisLock(redis, 'lock:busy', { ttlMs: 5_000, waitMs: 0 });
    try {
      const started = Date.now();
      await assert.rejects(
        withRedisLock(redis, 'lock:busy', async () => assert.fail('must not run'), { ttlMs: 5_000, waitMs: 200, onBusy: () => new Error('busy, retry') }),
        /busy, retry/,
      );
      const waited = Date.now() - started;
      assert.ok(waited >= 190 && waited < 2_000, `waited ${waited} ms`);
      await assert.rejects(
        withRedisLock(redis, 'lock:busy', async () => undefined, { ttlMs: 5_000, waitMs: 50 }),
        (error: unknown) => error instanceof LockBusyError && error.key === 'lock:busy',
      );
    } finally {
      await releaseRedisLock(redis, 'lock:busy', token);
    }
  });

  it('is freed by its TTL when the holder never releases it', async () => {
    await acquireRedisLock(redis, 'lock:ttl', { ttlMs: 150, waitMs: 0 });
    const started = Date.now();
    assert.equal(await withRedisLock(redis, 'lock:ttl', async () => 'got it', { ttlMs: 5_000, waitMs: 2_000 }), 'got it');
    assert.ok(Date.now() - started >= 100, 'waited for the expiry');
  });

  it('with renewEveryMs, outlives its TTL while the work runs, and a holder that stops renewing frees it within the TTL', async () => {
    const warnings: unknown[] = [];
    const held = withRedisLock(redis, 'lock:renewed', () => sleep(700), {
      ttlMs: 200,
      renewEveryMs: 60,
      waitMs: 0,
      logger: { warn: (details) => void warnings.push(details) },
    });
    await sleep(450);
    await assert.rejects(
      withRedisLock(redis, 'lock:renewed', async () => undefined, { ttlMs: 200, waitMs: 0 }),
      LockBusyError,
    );
    await held;
    assert.equal(await redis.exists('lock:renewed'), 0, 'released at the end');
    assert.deepEqual(warnings, []);
    // A holder that died (never renews, never releases) blocks others for at most its TTL.
    await acquireRedisLock(redis, 'lock:renewed', { ttlMs: 200, waitMs: 0 });
    const started = Date.now();
    assert.equal(await withRedisLock(redis, 'lock:renewed', async () => 'next', { ttlMs: 200, renewEveryMs: 60, waitMs: 2_000 }), 'next');
    assert.ok(Date.now() - started < 1_000);
  });

  it('logs, not throws, a failed release', async () => {
    const warnings: unknown[] = [];
    const broken = createRedis({ REDIS_URL, REDIS_PREFIX: PREFIX }, createLogger('locks-test', 'silent'));
    const result = await withRedisLock(
      broken,
      'lock:broken',
      async () => {
        // The connection goes away before the release.
        broken.disconnect();
        return 'done';
      },
      { ttlMs: 300, waitMs: 1_000, logger: { warn: (details) => void warnings.push(details) } },
    );
    assert.equal(result, 'done');
    assert.equal(warnings.length, 1);
  });
});
