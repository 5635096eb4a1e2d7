import Redis from 'ioredis';
import { onPath, spawnChild, stopChild, waitFor } from './process';

export interface RedisHandle {
  url: string;
  stop(): Promise<void>;
}

/**
 * Makes sure Redis answers at `url` (default redis://127.0.0.1:6379). When nothing
 * answers on a loopback URL and `redis-server` is installed, starts one without
 * persistence and stops it with the handle.
 */
export async function ensureRedis(url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<RedisHandle> {
  if (await ping(url)) return { url, stop: async () => {} };
  const parsed = new URL(url);
  const server = onPath('redis-server');
  if (!server || !['127.0.0.1', 'localhost'].includes(parsed.hostname)) {
    throw new Error(`Redis does not answer at ${parsed.host}; set REDIS_URL or install redis-server`);
  }
  const port = parsed.port || '6379';
  const { child, output } = spawnChild(server, ['--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  await waitFor(`redis-server on ${port}`, async () => {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output()}`);
    return ping(url);
  });
  return { url, stop: () => stopChild(child) };
}

async function ping(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
