import Redis from 'ioredis';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { onPath, spawnChild, superviseChild, waitFor } from './process';

export interface RedisHandle {
  url: string;
  stop(): Promise<void>;
}

/**
 * Makes sure Redis answers at `url` (default redis://127.0.0.1:6379). When nothing
 * answers on a loopback URL and `redis-server` is installed, starts one, supervised
 * (restarted if it crashes), and stops it with the handle. With a `dataDir` it keeps an
 * append-only file there, so a restart loses no queued job or event; without one (tests)
 * it keeps nothing.
 */
export async function ensureRedis(
  url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  options: { dataDir?: string; log?: (line: string) => void } = {},
): Promise<RedisHandle> {
  if (await ping(url)) return { url, stop: async () => {} };
  const parsed = new URL(url);
  const server = onPath('redis-server');
  if (!server || !['127.0.0.1', 'localhost'].includes(parsed.hostname)) {
    throw new Error(`Redis does not answer at ${parsed.host}; set REDIS_URL or install redis-server`);
  }
  const port = parsed.port || '6379';
  const persistence = options.dataDir
    ? ['--dir', mkdirp(path.join(options.dataDir, 'redis')), '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '']
    : ['--save', '', '--appendonly', 'no'];
  const start = () => spawnChild(server, ['--port', port, '--bind', '127.0.0.1', ...persistence]);
  const first = start();
  await waitFor(`redis-server on ${port}`, async () => {
    if (first.child.exitCode !== null) throw new Error(`redis-server exited: ${first.output()}`);
    return ping(url);
  });
  const supervisor = superviseChild('redis-server', first, start, options.log ?? (() => {}));
  return { url, stop: () => supervisor.stop() };
}

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
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
