import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { z } from 'zod';
import { createEventBus, createJobQueue, defineEvent } from '@quire/async';
import { createLogger } from '@quire/runtime';

/*
 * The floor of `npm run bench -- requestpath` (design card): the least any gateway → service
 * request path can cost on this machine. Two processes, as in Quire:
 *
 *   node bench-floor.js backend        express answering GET /v1/spaces/:id with FLOOR_BODY (JSON)
 *   node bench-floor.js proxy <url>    express + http-proxy-middleware in front of it
 *
 * and the floor of `npm run bench -- integrations`: the least an event delivery can cost with
 * Quire's transport, one process playing both services:
 *
 *   node bench-floor.js delivery <url> express answering POST /emit with 204 once its JSON body
 *                                      is on the event stream (REDIS_URL, REDIS_PREFIX); a consumer
 *                                      queues it as a job (BullMQ, the delivery worker's
 *                                      concurrency), whose worker POSTs it to <url>
 *
 * With FLOOR_HTML_FILE set, the backend also answers every other GET with that file's content as
 * text/html, read once (gzipped once too, for clients that take it), and a fixed ETag (a 304 when If-None-Match has it): the floor of
 * `npm run bench -- sites`, a published page served from memory. (A file: a page of a large
 * site is longer than one environment variable may be.)
 *
 * Each prints `{"port":…}` once it listens and exits when its parent closes its stdin.
 */

function backend(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Parsed once and serialized per request, as a service presents a document it has loaded.
  const body = JSON.parse(process.env.FLOOR_BODY ?? '{}') as unknown;
  app.get('/v1/spaces/:spaceId', (_req, res) => {
    res.json(body);
  });
  if (process.env.FLOOR_HTML_FILE) {
    const html = readFileSync(process.env.FLOOR_HTML_FILE, 'utf8');
    // The ETag is computed once, as a page's is kept with it; express's own (a hash per answer) is off.
    app.set('etag', false);
    const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;
    // Its gzip too is made once, as a rendered page's is.
    const gzipped = gzipSync(html, { level: 6 });
    app.get('/{*path}', (req, res) => {
      res.set({ etag, 'cache-control': 'public, max-age=0, must-revalidate', vary: 'Accept-Encoding' });
      if (req.get('if-none-match') === etag) return void res.status(304).end();
      if (req.acceptsEncodings('gzip', 'identity') === 'gzip') return void res.type('html').set('content-encoding', 'gzip').send(gzipped);
      res.type('html').send(html);
    });
  }
  return app;
}

function proxy(target: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // The gateway's proxy settings: kept-alive connections to the service.
  app.use(createProxyMiddleware({ target, agent: new Agent({ keepAlive: true, maxSockets: 256 }), changeOrigin: false, xfwd: true }));
  return app;
}

/** The floor's own event (the key bench-integrations posts), checked on publish and parsed on delivery as Quire's events are. */
const FLOOR_EMITTED = defineEvent('floor.emitted', z.object({ key: z.string() }));

/** Quire's delivery path without its own work (rows, installations, signing, the sandbox): stream → queue → HTTP POST. */
function delivery(receiver: string): express.Express {
  const options = { redisUrl: process.env.REDIS_URL!, prefix: process.env.REDIS_PREFIX!, logger: createLogger('bench-floor', 'warn') };
  const events = createEventBus(options);
  const queue = createJobQueue<unknown, void>('floor-deliveries', options);
  queue.work(
    async (job) => {
      const answer = await fetch(receiver, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(job.data) });
      if (!answer.ok) throw new Error(`the receiver answered ${answer.status}`);
    },
    { concurrency: 4 },
  );
  void events.subscribe('floor-deliveries', [FLOOR_EMITTED], async (event) => void (await queue.add(event.payload, { jobId: event.id })));
  const app = express();
  app.disable('x-powered-by');
  app.post('/emit', express.json(), async (req, res) => {
    await events.publish(FLOOR_EMITTED, req.body);
    res.status(204).end();
  });
  return app;
}

const [role, target] = process.argv.slice(2);
if (role !== 'backend' && !((role === 'proxy' || role === 'delivery') && target)) {
  console.error('usage: bench-floor.js backend | proxy <target url> | delivery <receiver url>');
  process.exit(2);
}
const app = role === 'backend' ? backend() : role === 'proxy' ? proxy(target) : delivery(target);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
});
process.stdin.resume();
process.stdin.on('close', () => process.exit(0));
