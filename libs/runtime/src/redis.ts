import Redis from 'ioredis';
import type { BaseConfig } from './config';
import type { Logger } from './logger';

export type RedisClient = Redis;

/**
 * One Redis connection with the deployment's key prefix, so that several stacks (or
 * test suites) can share a server without seeing each other's keys.
 */
export function createRedis(config: Pick<BaseConfig, 'REDIS_URL' | 'REDIS_PREFIX'>, logger: Logger): RedisClient {
  const client = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_PREFIX,
    // While Redis is down a command fails at the next reconnection attempt (≤ 500 ms later)
    // instead of waiting: callers answer 503 fast and the client keeps reconnecting.
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 100, 500),
  });
  let reported = false;
  client.on('error', (error) => {
    if (!reported) logger.warn({ err: error.message }, 'redis error');
    reported = true;
  });
  client.on('ready', () => {
    reported = false;
  });
  return client;
}
