import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from '@quire/http';
import type { RedisClient } from '@quire/runtime';

/**
 * Fixed-window limits in Redis, shared by every gateway replica. Sets the
 * X-RateLimit-* headers on every answer and fails with 429 + Retry-After when spent.
 */
export function createRateLimiter(options: { redis: RedisClient; points: number; durationSeconds: number }) {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: 'ratelimit',
    points: options.points,
    duration: options.durationSeconds,
    // While Redis is unreachable, each replica enforces the same limit in its own memory.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: 'ratelimit', points: options.points, duration: options.durationSeconds }),
  });

  function setHeaders(res: Response, state: RateLimiterRes) {
    res.set({
      'X-RateLimit-Limit': String(options.points),
      'X-RateLimit-Remaining': String(Math.max(0, state.remainingPoints)),
      'X-RateLimit-Reset': String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)),
    });
  }

  return async function consume(key: string, res: Response): Promise<void> {
    try {
      setHeaders(res, await limiter.consume(key));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(res, rejection);
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new HttpError(429, `Rate limit exceeded: retry in ${retryAfter} s`, { 'Retry-After': String(retryAfter) });
    }
  };
}
