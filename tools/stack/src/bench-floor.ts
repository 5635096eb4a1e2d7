import { Agent } from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

/*
 * The floor of `npm run bench -- requestpath` (design card): the least any gateway → service
 * request path can cost on this machine. Two processes, as in Quire:
 *
 *   node bench-floor.js backend        express answering GET /v1/spaces/:id with FLOOR_BODY (JSON)
 *   node bench-floor.js proxy <url>    express + http-proxy-middleware in front of it
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
  return app;
}

function proxy(target: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // The gateway's proxy settings: kept-alive connections to the service.
  app.use(createProxyMiddleware({ target, agent: new Agent({ keepAlive: true, maxSockets: 256 }), changeOrigin: false, xfwd: true }));
  return app;
}

const [role, target] = process.argv.slice(2);
if (role !== 'backend' && !(role === 'proxy' && target)) {
  console.error('usage: bench-floor.js backend | proxy <target url>');
  process.exit(2);
}
const server = (role === 'backend' ? backend() : proxy(target)).listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
});
process.stdin.resume();
process.stdin.on('close', () => process.exit(0));
