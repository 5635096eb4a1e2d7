import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import type { Response } from 'express';
import { createLogger, createRedis, type RedisClient } from '@quire/runtime';
import { testEnvironment } from '@quire/testkit';
import { HttpError } from './errors';
import { createRateLimiter } from './rate-limit';

/*
 * The shared limit on the real Redis: two limiters on one key play two replicas. A busy key is
 * counted in memory between Redis calls (a hundredth of the limit at a time), and the limit holds
 * within that much per replica.
 */

/** What consume writes on an answer: its headers. */
function answer() {
  const headers: Record<string, string> = {};
  return { headers, res: { set: (values: Record<string, string>) => Object.assign(headers, values) } as unknown as Response };
}

describe('rate limiter', () => {
  let redis: RedisClient;
  let run = 0;
  const keyPrefix = () => `rate-limit-test-${++run}`;

  beforeAll(async () => {
    const env = await testEnvironment();
    redis = createRedis({ REDIS_URL: env.redisUrl, REDIS_PREFIX: env.redisPrefix }, createLogger('rate-limit-test', 'silent'));
  });
  afterAll(async () => {
    await redis.quit();
  });

  /** Consumes once; the status it would answer (200 or 429) and its headers. */
  async function take(consume: ReturnType<typeof createRateLimiter>, key: string) {
    const { headers, res } = answer();
    try {
      await consume(key, res);
      return { status: 200, headers };
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return { status: error.status, headers: { ...headers, ...error.headers } };
    }
  }

  it('counts a busy key in memory between Redis calls, and tells the caller the exact remainder', async () => {
    const prefix = keyPrefix();
    const consume = createRateLimiter({ redis, points: 1000, durationSeconds: 60, keyPrefix: prefix });
    const remainders: number[] = [];
    for (let n = 0; n < 25; n++) remainders.push(Number((await take(consume, 'caller')).headers['X-RateLimit-Remaining']));
    assert.deepEqual(
      remainders,
      Array.from({ length: 25 }, (_, n) => 999 - n),
    );
    // The first request, then one call per ten: 1 + 10 + 10 taken in Redis, four still counted here.
    assert.equal(await redis.get(`${prefix}:caller`), '21');
  });

  it('holds a limit shared by two replicas within a hundredth of it per replica', async () => {
    const prefix = keyPrefix();
    const replicas = [0, 1].map(() => createRateLimiter({ redis, points: 1000, durationSeconds: 60, keyPrefix: prefix }));
    let allowed = 0;
    let refused: Awaited<ReturnType<typeof take>> | undefined;
    for (let n = 0; n < 1100 && !refused; n++) {
      const taken = await take(replicas[n % 2], 'caller');
      if (taken.status === 200) allowed++;
      else refused = taken;
    }
    assert.ok(refused, 'the limit was never reached');
    assert.ok(allowed >= 1000 - 2 * 10 && allowed <= 1000 + 2 * 10, `allowed ${allowed} of 1000`);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['X-RateLimit-Remaining'], '0');
    assert.ok(Number(refused.headers['Retry-After']) >= 1);
  });

  it('asks Redis on every request under a small limit: exact across replicas', async () => {
    const prefix = keyPrefix();
    const replicas = [0, 1].map(() => createRateLimiter({ redis, points: 50, durationSeconds: 60, keyPrefix: prefix }));
    const statuses: number[] = [];
    for (let n = 0; n < 60; n++) statuses.push((await take(replicas[n % 2], 'caller')).status);
    assert.equal(statuses.filter((status) => status === 200).length, 50);
    assert.deepEqual(statuses.slice(50), Array(10).fill(429));
    assert.equal(await redis.get(`${prefix}:caller`), '60');
  });

  it('keeps keys apart', async () => {
    const prefix = keyPrefix();
    const consume = createRateLimiter({ redis, points: 2, durationSeconds: 60, keyPrefix: prefix });
    assert.equal((await take(consume, 'a')).status, 200);
    assert.equal((await take(consume, 'a')).status, 200);
    assert.equal((await take(consume, 'a')).status, 429);
    assert.equal((await take(consume, 'b')).status, 200);
  });
});
