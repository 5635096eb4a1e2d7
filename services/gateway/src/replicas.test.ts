import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createLogger } from '@quire/runtime';
import { waitFor } from '@quire/testkit';
import { watchReplicas } from './replicas';

const logger = createLogger('replicas-test', 'silent');

describe('a service’s replicas, as the gateway picks them', () => {
  /** Two replicas whose /readyz answers what `ready` says. */
  const ready = [true, true];
  const servers: Server[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    for (const i of [0, 1]) {
      const server = createServer((_req, res) => res.writeHead(ready[i] ? 200 : 503).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it('goes round robin, skips one whose connection failed for a while, and avoids the one a retry names', async () => {
    const replicas = watchReplicas('content', ['http://a', 'http://b'], logger, { downMs: 200 });
    try {
      assert.deepEqual([replicas.pick(), replicas.pick(), replicas.pick(), replicas.pick()], ['http://a', 'http://b', 'http://a', 'http://b']);
      replicas.markDown('http://a');
      assert.deepEqual([replicas.pick(), replicas.pick(), replicas.pick()], ['http://b', 'http://b', 'http://b']);
      assert.equal(replicas.pick('http://b'), 'http://a', 'a retry goes to the other one, even one thought down');
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.deepEqual(new Set([replicas.pick(), replicas.pick()]), new Set(['http://a', 'http://b']), 'back once its time is up');
    } finally {
      replicas.close();
    }
  });

  it('skips a replica while its /readyz does not answer 200, and takes it back when it does', async () => {
    const replicas = watchReplicas('content', urls, logger, { pollMs: 50 });
    try {
      ready[1] = false;
      await waitFor('the second replica to be skipped', async () => [1, 2, 3, 4].every(() => replicas.pick() === urls[0]), 2_000);
      ready[1] = true;
      await waitFor('the second replica to be back', async () => new Set([1, 2, 3, 4].map(() => replicas.pick())).size === 2, 2_000);
    } finally {
      replicas.close();
    }
  });

  it('asks nothing of a single replica, and sends to it whatever happened', () => {
    const replicas = watchReplicas('content', ['http://only'], logger);
    replicas.markDown('http://only');
    assert.equal(replicas.pick(), 'http://only');
    assert.equal(replicas.pick('http://only'), 'http://only');
    replicas.close();
  });
});
