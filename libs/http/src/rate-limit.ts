import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { LruCache, type RedisClient } from '@quire/runtime';
import { HttpError } from './errors';

interface RateLimitOptions {
  redis: RedisClient;
  points: number;
  durationSeconds: number;
  keyPrefix?: string;
}

function redisLimiter(options: RateLimitOptions): RateLimiterRedis {
  const keyPrefix = options.keyPrefix ?? 'ratelimit';
  return new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
    // While Redis is unreachable, each replica enforces the same limit in its own memory.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: options.points, duration: options.durationSeconds }),
  });
}

/**
 * How many points a replica counts in its own memory before it adds them to the shared count in
 * Redis: a hundredth of the limit, at most 100 (1 for limits under 200: every request asks Redis).
 */
const syncEveryOf = (points: number) => Math.min(100, Math.max(1, Math.floor(points / 100)));

/** A key's count as one replica knows it: Redis's last answer, and the points taken here since. */
interface LocalCount {
  unsynced: number;
  remaining: number;
  resetsAt: number;
}

/** Keys whose local counts a replica keeps; past it, the least recently seen go (their unsynced points with them). */
const LOCAL_KEYS = 10_000;

/**
 * Fixed-window limits in Redis, shared by every replica (the gateway's per caller, the
 * integrations service's per integration endpoint). Sets the X-RateLimit-* headers on every
 * answer and fails with 429 + Retry-After when spent.
 *
 * A busy key does not cost a Redis call per request (the periodic sync of rate-limiter-flexible's
 * wiki): each replica counts up to `syncEvery` points in memory between two calls, as long as
 * Redis's last answer left more than that. Near the limit every request asks Redis, so a key
 * may pass its limit by at most `syncEvery` points per replica (1 % of it per replica).
 */
export function createRateLimiter(options: RateLimitOptions) {
  const limiter = redisLimiter(options);
  const syncEvery = syncEveryOf(options.points);
  const counts = new LruCache<LocalCount>(LOCAL_KEYS);

  function setHeaders(res: Response, remaining: number, resetsAt: number) {
    res.set({
      'X-RateLimit-Limit': String(options.points),
      'X-RateLimit-Remaining': String(Math.max(0, remaining)),
      'X-RateLimit-Reset': String(Math.ceil(resetsAt / 1000)),
    });
  }

  /** Takes `points` (default 1: one request) from `key`'s allowance. */
  return async function consume(key: string, res: Response, points = 1): Promise<void> {
    const now = Date.now();
    let local = syncEvery > 1 ? counts.get(key) : undefined;
    if (local && now >= local.resetsAt) local = undefined;
    if (local && local.unsynced + points < syncEvery && local.remaining - local.unsynced - points >= syncEvery) {
      local.unsynced += points;
      return setHeaders(res, local.remaining - local.unsynced, local.resetsAt);
    }
    // Taken to Redis with what this replica counted since its last call (requests that come
    // meanwhile count on, to be taken with the next call).
    const taken = points + (local?.unsynced ?? 0);
    if (local) local.unsynced = 0;
    let state: RateLimiterRes;
    try {
      state = await limiter.consume(key, taken);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      state = rejection;
    }
    const resetsAt = Date.now() + state.msBeforeNext;
    // This window's count here (kept by whichever request made it, with what came meanwhile still unsynced); a new one after a reset.
    let counted: LocalCount | undefined;
    if (syncEvery > 1) {
      counted = counts.get(key);
      if (counted && counted.resetsAt > now) Object.assign(counted, { remaining: state.remainingPoints, resetsAt });
      else counts.set(key, (counted = { unsynced: 0, remaining: state.remainingPoints, resetsAt }), 1);
    }
    setHeaders(res, state.remainingPoints - (counted?.unsynced ?? 0), resetsAt);
    // consumedPoints past the limit: this request's points (with those counted here) did not fit.
    if (state.consumedPoints > options.points) {
      const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      throw new HttpError(429, `Rate limit exceeded: retry in ${retryAfter} s`, { 'Retry-After': String(retryAfter) });
    }
  };
}

/**
 * A budget per key and window, spent after the fact by what a piece of work cost (script CPU
 * milliseconds, say) rather than per request: `spent` tells whether the key still has some left
 * before the work starts (and when it comes back), `spend` charges what the work took.
 */
export function createBudget(options: RateLimitOptions) {
  const limiter = redisLimiter(options);
  return {
    /** Milliseconds until `key`'s budget comes back when it is used up, else 0. */
    async exhaustedFor(key: string): Promise<number> {
      const state = await limiter.get(key);
      return state && state.consumedPoints >= options.points ? Math.max(1, state.msBeforeNext) : 0;
    },
    /** Charges `points` to `key` (past the budget too: the work is done). */
    async spend(key: string, points: number): Promise<void> {
      if (points > 0) await limiter.penalty(key, Math.ceil(points));
    },
  };
}
