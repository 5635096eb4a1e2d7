import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '@quire/runtime';
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
 * Fixed-window limits in Redis, shared by every replica (the gateway's per caller, the
 * integrations service's per integration endpoint). Sets the X-RateLimit-* headers on every
 * answer and fails with 429 + Retry-After when spent.
 */
export function createRateLimiter(options: RateLimitOptions) {
  const limiter = redisLimiter(options);

  function setHeaders(res: Response, state: RateLimiterRes) {
    res.set({
      'X-RateLimit-Limit': String(options.points),
      'X-RateLimit-Remaining': String(Math.max(0, state.remainingPoints)),
      'X-RateLimit-Reset': String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)),
    });
  }

  /** Takes `points` (default 1: one request) from `key`'s allowance. */
  return async function consume(key: string, res: Response, points = 1): Promise<void> {
    try {
      setHeaders(res, await limiter.consume(key, points));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(res, rejection);
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
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
