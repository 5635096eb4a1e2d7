import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis';

/*
 * A short mutual-exclusion lock on one Redis key, for read-check-write sequences that the
 * database alone cannot make atomic (FerretDB v1 has no document-level isolation for
 * updates, and there are no multi-document transactions). Single Redis server semantics:
 * good enough for serializing our own writers, not a consensus protocol. The TTL bounds
 * how long a crashed holder blocks others; callers keep their conditional updates so a
 * lock that expired mid-way still cannot make the database lose a write silently.
 */

/** What the lock needs of a logger (a pino Logger fits). */
export interface LockLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface RedisLockOptions {
  /** How long the lock lives if its holder never releases it (crash, hang); with `renewEveryMs`, past its last renewal. */
  ttlMs: number;
  /**
   * withRedisLock only: renew the lock every this many ms while the work runs, so that `ttlMs`
   * bounds how long a crashed holder blocks others, not how long live work may take.
   */
  renewEveryMs?: number;
  /** How long to wait for a busy lock before giving up with `onBusy()`. */
  waitMs: number;
  /** The error thrown when the lock stays busy for `waitMs` (default: LockBusyError). */
  onBusy?: () => Error;
  /** Where a failed release is reported; without one it is ignored (the TTL frees the lock anyway). */
  logger?: LockLogger;
  /** First pause between attempts; it doubles up to `maxPauseMs`. */
  initialPauseMs?: number;
  maxPauseMs?: number;
}

export class LockBusyError extends Error {
  constructor(readonly key: string) {
    super(`The lock ${key} is busy`);
    this.name = 'LockBusyError';
  }
}

// Only the holder (same token) may delete the key: a holder whose lock expired must not
// free the lock of the next one. One script so the check and the delete are atomic.
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
// Likewise, only the holder extends it.
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the lock (waiting up to `waitMs`) and returns the holder's token. */
export async function acquireRedisLock(redis: RedisClient, key: string, options: RedisLockOptions): Promise<string> {
  const token = randomUUID();
  const deadline = Date.now() + options.waitMs;
  const maxPause = options.maxPauseMs ?? 100;
  let pause = options.initialPauseMs ?? 5;
  for (;;) {
    if ((await redis.set(key, token, 'PX', options.ttlMs, 'NX')) === 'OK') return token;
    const left = deadline - Date.now();
    if (left <= 0) throw options.onBusy?.() ?? new LockBusyError(key);
    // Jitter so that waiters woken together do not retry in lock-step.
    await sleep(Math.min(left, pause / 2 + Math.random() * (pause / 2)));
    pause = Math.min(pause * 2, maxPause);
  }
}

/** Frees the lock if `token` still holds it; true when it did. Never throws. */
export async function releaseRedisLock(redis: RedisClient, key: string, token: string, logger?: LockLogger): Promise<boolean> {
  try {
    return (await redis.eval(RELEASE, 1, key, token)) === 1;
  } catch (error) {
    logger?.warn({ err: error, key }, 'could not release a lock');
    return false;
  }
}

/**
 * Runs `work` while holding the lock `key`, then releases it (also when `work` throws).
 * A release failure does not replace the work's result or error: it is only logged. With
 * `renewEveryMs` the lock is kept alive while `work` runs (every renewal resets `ttlMs`).
 */
export async function withRedisLock<T>(redis: RedisClient, key: string, work: () => Promise<T>, options: RedisLockOptions): Promise<T> {
  const token = await acquireRedisLock(redis, key, options);
  let held = true;
  const renew = async () => {
    try {
      const kept = await redis.eval(RENEW, 1, key, token, String(options.ttlMs));
      if (kept !== 1 && held) options.logger?.warn({ key }, 'a lock expired before its holder renewed it');
    } catch (error) {
      if (held) options.logger?.warn({ err: error, key }, 'could not renew a lock');
    }
  };
  const renewal = options.renewEveryMs ? setInterval(() => void renew(), options.renewEveryMs) : undefined;
  renewal?.unref();
  try {
    return await work();
  } finally {
    held = false;
    clearInterval(renewal);
    await releaseRedisLock(redis, key, token, options.logger);
  }
}
