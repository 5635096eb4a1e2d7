import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, it } from '@jest/globals';
import pino from 'pino';
import { createServiceApp, finishServiceApp } from './app';
import { httpError } from './errors';

/*
 * The access log of every service: a line per request at `info`, with the secrets of its query
 * blanked; above `info`, only the requests that answered 5xx, with the same fields.
 */

async function logsOf(level: string): Promise<Array<Record<string, any>>> {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level }, sink);
  const app = createServiceApp({ logger, secret: 'test-secret', ready: async () => true });
  app.get('/fine', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/broken', () => {
    throw new Error('the handler failed');
  });
  app.get('/missing', () => {
    throw httpError.notFound('Thing');
  });
  finishServiceApp(app, logger);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const path of ['/fine?jwt_token=secret-token', '/broken?jwt_token=secret-token', '/missing']) {
      const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
    }
    // The finish listeners run once the answers are out.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  // Only the requests above (the suite's contract checks may ask the server for its API document).
  return lines.filter((line) => line.req && !String(line.req.url).startsWith('/openapi'));
}

describe('access log', () => {
  it('writes a line per request at info, the failures as errors, secrets blanked', async () => {
    const lines = await logsOf('info');
    assert.deepEqual(
      lines.map((line) => [line.level, line.req.url, line.res.statusCode]),
      [
        [30, '/fine?jwt_token=[redacted]', 200],
        [50, '/broken?jwt_token=[redacted]', 500],
        [30, '/missing', 404],
      ],
    );
  });

  it('writes only the 5xx answers above info, with the same fields', async () => {
    const lines = await logsOf('warn');
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const [line] = lines;
    assert.equal(line.level, 50);
    assert.equal(line.msg, 'request errored');
    assert.deepEqual(line.req, { method: 'GET', url: '/broken?jwt_token=[redacted]' });
    assert.deepEqual(line.res, { statusCode: 500 });
    assert.match(String(line.reqId), /^[\w-]+$/);
    assert.equal(typeof line.responseTime, 'number');
  });
});
