import Redis from 'ioredis';
import type { BaseConfig } from './config';
import type { Logger } from './logger';
import { dbOperationDurations, type MetricsRegistry } from './metrics';

export type RedisClient = Redis;

/**
 * One Redis connection with the deployment's key prefix, so that several stacks (or
 * test suites) can share a server without seeing each other's keys.
 */
export function createRedis(config: Pick<BaseConfig, 'REDIS_URL' | 'REDIS_PREFIX'>, logger: Logger, metrics?: MetricsRegistry): RedisClient {
  const client = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_PREFIX,
    // While Redis is down a command fails at the next reconnection attempt (≤ 500 ms later)
    // instead of waiting: callers answer 503 fast and the client keeps reconnecting.
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 100, 500),
    // Commands issued in the same tick leave in one write (a busy replica's rate-limit checks and
    // reads): fewer system calls, same order.
    enableAutoPipelining: true,
  });
  let reported = false;
  client.on('error', (error) => {
    if (!reported) logger.warn({ err: error.message }, 'redis error');
    reported = true;
  });
  client.on('ready', () => {
    reported = false;
  });
  if (metrics) reportCommands(client, metrics);
  return client;
}

/** Reports the duration of each command of `client` (db_client_operation_duration_seconds, system redis). */
function reportCommands(client: RedisClient, registry: MetricsRegistry): void {
  const durations = dbOperationDurations(registry);
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    const started = performance.now();
    const observe = (errorType: string) =>
      durations.observe(
        { db_system_name: 'redis', db_namespace: '', db_operation_name: command.name, error_type: errorType },
        (performance.now() - started) / 1000,
      );
    command.promise.then(
      () => observe(''),
      (error: Error) => observe(error?.name ?? 'error'),
    );
    return send(command, stream);
  };
}
