import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { ClientError, Status } from 'nice-grpc';
import { createGrpcServer, createHealthClient } from './grpc';
import { createLogger } from './logger';

const SECRET = 'grpc-test-secret-grpc-test-secret-000001';
const logger = createLogger('grpc-test', 'silent');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('gRPC clients', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('retry on UNAVAILABLE until a server that starts late answers', async () => {
    const port = await freePort();
    const client = createHealthClient({ address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test' });
    const call = client.check({ service: '' }, { deadline: 3_000, retry: true, retryMaxAttempts: 10, retryBaseDelayMs: 50, retryMaxDelayMs: 200 });
    await new Promise((r) => setTimeout(r, 300));
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    await server.listen();
    cleanups.push(() => server.shutdown());
    const response = await call;
    assert.equal(response.status, 1, 'SERVING');
  });

  it('give up at the deadline when the peer never answers', async () => {
    // A TCP server that accepts connections and never says a word.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      sockets.forEach((s) => s.destroy());
      silent.close();
    });
    const { port } = silent.address() as net.AddressInfo;
    const client = createHealthClient({ address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test' });
    const started = Date.now();
    await assert.rejects(client.check({ service: '' }, { deadline: 300, retry: false }), (error: ClientError) => error.code === Status.DEADLINE_EXCEEDED);
    assert.ok(Date.now() - started < 3_000);
  });

  it('report the server unhealthy once it is shutting down', async () => {
    const port = await freePort();
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    await server.listen();
    const client = createHealthClient({ address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test' });
    assert.equal((await client.check({ service: '' })).status, 1);
    server.health.setStatus('unhealthy');
    assert.equal((await client.check({ service: '' })).status, 2, 'NOT_SERVING');
    await server.shutdown();
  });
});
