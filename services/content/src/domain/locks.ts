import { randomUUID } from 'node:crypto';
import { httpError } from '@quire/http';
import type { ContentContext } from './context';

/*
 * Short per-document write locks in Redis. Why, on top of conditional updates: FerretDB
 * v1 applies an update as read-modify-write of the whole document without isolation, so
 * two concurrent conditional updates can both "match" and the last one silently wins
 * (measured: three concurrent `updateOne({v: 0}, {$inc: {v: 1}})` all report a
 * modification and v ends at 1). Every write this code makes to a Space or a change
 * request document therefore runs under that document's lock; the conditional updates
 * stay, so a lock that expired mid-way still cannot make MongoDB lose a write.
 * Lock order is always space before change request (no deadlock).
 */

const TTL_MS = 60_000;
const WAIT_MS = 30_000;
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

async function acquire(ctx: ContentContext, key: string): Promise<string> {
  const token = randomUUID();
  const deadline = Date.now() + WAIT_MS;
  let pause = 5;
  for (;;) {
    if ((await ctx.redis.set(key, token, 'PX', TTL_MS, 'NX')) === 'OK') return token;
    if (Date.now() > deadline) throw httpError.unavailable('The content is busy with other writes; retry');
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 100);
  }
}

export async function withLock<T>(ctx: ContentContext, key: string, work: () => Promise<T>): Promise<T> {
  const lockKey = `content:lock:${key}`;
  const token = await acquire(ctx, lockKey);
  try {
    return await work();
  } finally {
    await ctx.redis.eval(RELEASE, 1, lockKey, token).catch((error: unknown) => ctx.logger.warn({ err: error, key }, 'could not release a lock'));
  }
}

export const spaceLock = (spaceId: string) => `space:${spaceId}`;
export const changeRequestLock = (changeRequestId: string) => `change-request:${changeRequestId}`;
