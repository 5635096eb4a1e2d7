import assert from 'node:assert/strict';
import net from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { MAX_HEADER_BYTES, runService, type ServiceHandle } from './lifecycle';
import { createLogger } from './logger';

/** Sends `request` as raw bytes and reads everything the server answers until it closes. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.end(request);
  });
}

describe('the HTTP listener of every service', () => {
  let service: ServiceHandle;
  let base: string;

  beforeAll(async () => {
    service = await runService({
      name: 'listener-test',
      logger: createLogger('listener-test', 'silent'),
      host: '127.0.0.1',
      httpPort: 0,
      httpHandler: (req, res) => res.end(`url of ${req.url!.length} bytes`),
      handleSignals: false,
    });
    base = `http://127.0.0.1:${service.httpPort}`;
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('takes a request line above node’s 16 KB default', async () => {
    const answer = await fetch(`${base}/x?${'a'.repeat(20 * 1024)}`);
    assert.equal(answer.status, 200);
  });

  it('answers a request line and headers over the limit with 431 and the error body, not a reset', async () => {
    for (const size of [MAX_HEADER_BYTES, 3 * MAX_HEADER_BYTES]) {
      const answer = await fetch(`${base}/x?${Array.from({ length: Math.ceil(size / 9216) }, (_, i) => `p${i}=${'x'.repeat(9216)}`).join('&')}`);
      assert.equal(answer.status, 431);
      assert.match(answer.headers.get('content-type') ?? '', /application\/json/);
      const body = (await answer.json()) as { error: { code: number; message: string } };
      assert.equal(body.error.code, 431);
      assert.match(body.error.message, /too large/);
    }
  });

  it('answers a request that is not HTTP with 400 and the error body', async () => {
    const answer = await rawExchange(service.httpPort!, 'NOT HTTP AT ALL\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(answer, /\r\n\r\n\{"error":\{"code":400,"message":"Bad request: [^"]+"\}\}$/);
  });
});
