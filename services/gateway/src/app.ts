import { trace } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { Agent, type ClientRequest, type ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { HttpError, sendError } from '@quire/http';
import {
  CLIENT_ADDRESS_HEADER,
  INTERNAL_HEADERS,
  continueTrace,
  MAX_URL_BYTES,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  REQUEST_ID_PATTERN,
  SIGNATURE_HEADER,
  requestContext,
  signPrincipal,
  type Logger,
  type Principal,
} from '@quire/runtime';
import { httpUrlsOf, SERVICES, type GatewayConfig, type ServiceName } from './config';
import { docsRouter } from './docs';
import { filesHostGuard, onFilesHost, separateFilesHost } from './files-host';
import type { ApiDocument } from './openapi';
import { watchReplicas, type Replicas } from './replicas';
import { routeFor, siteRequestPath } from './routes';
import type { SiteRevisits } from './site-revisits';

export interface GatewayParts {
  config: GatewayConfig;
  logger: Logger;
  authenticate(header: string | undefined): Promise<Principal & { tokenHash: string }>;
  consumeRate(key: string, res: Response): Promise<void>;
  ready(): Promise<{ ready: boolean; checks: Record<string, boolean> }>;
  /** The OpenAPI document of every operation callers can reach (openapi.ts). */
  apiDocument(): Promise<ApiDocument>;
  metrics: { observe(service: string, method: string, status: number, seconds: number): void };
  /** Each service's replicas (startGateway watches them, and stops watching on stop); made from the config when not given. */
  replicas?: Record<ServiceName, Replicas>;
  /** The revisits of published pages answered here (site-revisits.ts). */
  siteRevisits: SiteRevisits;
}

/**
 * The gateway's request pipeline: ids → URL length → health → auth → rate limit → route → proxy
 * (for published sites: ids → URL length → rate limit → a kept revisit, or the proxy).
 */
export function createGatewayApp(parts: GatewayParts): Express {
  const { config, logger } = parts;
  const app = express();
  app.disable('x-powered-by');

  app.use((req, res, next) => {
    // Only when present: deleting a property of the headers object would slow every later read of it.
    for (const header of INTERNAL_HEADERS) if (req.headers[header] !== undefined) delete req.headers[header];
    const given = req.get(REQUEST_ID_HEADER);
    const requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.set(REQUEST_ID_HEADER, requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const service = (res.locals.service as string | undefined) ?? 'gateway';
      parts.metrics.observe(service, req.method, res.statusCode, seconds);
      if (logger.isLevelEnabled('info'))
        logger.info(
          { reqId: requestId, method: req.method, path: req.path, status: res.statusCode, upstream: service, ms: Math.round(seconds * 1000) },
          'request',
        );
    });
    // A request not sampled here runs in its unsampled trace (@quire/runtime continueTrace): its calls say so to every service.
    requestContext.run({ requestId }, () => continueTrace(req.headers, next));
  });
  // Longer URLs than this are refused here, with the error body, before anything reads them.
  app.use((req, _res, next) => {
    if (Buffer.byteLength(req.originalUrl) > MAX_URL_BYTES) throw new HttpError(414, `URI too long: the URL is limited to ${MAX_URL_BYTES} bytes`);
    next();
  });

  // On the files host, signed downloads only; downloads nowhere else (files-host.ts).
  const filesHost = separateFilesHost(config);
  app.use(filesHostGuard(filesHost));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const { ready, checks } = await parts.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  // /metrics is not here: it is served on its own internal listener (METRICS_PORT, service.ts).

  const replicas = parts.replicas ?? replicasOf(config, logger);
  const proxies = Object.fromEntries(SERVICES.map((service) => [service, proxyTo(service, replicas[service], config, logger, parts.siteRevisits)])) as Record<
    ServiceName,
    RequestHandler
  >;

  // Published sites: under /sites/ here, and on any host that is not the API's (their own
  // hostnames, the sites domain). No token: the publishing service applies each site's audience.
  const apiHost = new URL(config.PUBLIC_BASE_URL).hostname;
  app.use(async (req, res, next) => {
    const path = onFilesHost(req, filesHost) ? undefined : siteRequestPath(req.hostname, apiHost, req.originalUrl);
    if (path === undefined) return next();
    await parts.consumeRate(`ip:${req.ip}`, res);
    if (parts.siteRevisits.answer(req, res, path)) return;
    req.originalUrl = path;
    // Publishing sees the gateway's address on the connection: the visitor's is told (for its views).
    if (req.ip) req.headers[CLIENT_ADDRESS_HEADER] = req.ip;
    parts.siteRevisits.expect(req, path);
    await forward('publishing', req, res, next);
  });

  app.use(docsRouter());

  // The API document needs no token: it describes the API, nothing of anyone's data.
  app.get('/v1/openapi.json', async (req, res) => {
    await parts.consumeRate(`ip:${req.ip}`, res);
    let document: ApiDocument;
    try {
      document = await parts.apiDocument();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'API document unavailable');
      throw new HttpError(503, 'The API document is not available yet: a service is not answering, retry shortly', { 'Retry-After': '1' });
    }
    res.json(document);
  });

  app.use('/v1', async (req, res, next) => {
    const path = req.originalUrl.split('?')[0];
    const route = routeFor(path);
    if (route?.public) {
      // No principal is forwarded (incoming internal headers were stripped above).
      await parts.consumeRate(`ip:${req.ip}`, res);
      return forward(route.service, req, res, next);
    }

    let principal: Principal & { tokenHash: string };
    try {
      principal = await parts.authenticate(req.get('authorization'));
    } catch (error) {
      // Failed attempts count against the caller's address, to slow down token guessing.
      if (error instanceof HttpError && error.status === 401) await parts.consumeRate(`ip:${req.ip}`, res);
      throw error;
    }
    await parts.consumeRate(`token:${principal.tokenHash}`, res);

    if (!route) throw new HttpError(404, `No route for ${req.method} ${path}`);
    const { tokenHash: _hash, ...forwarded } = principal;
    const { value, signature } = signPrincipal(config.INTERNAL_HMAC_SECRET, forwarded);
    req.headers[PRINCIPAL_HEADER] = value;
    req.headers[SIGNATURE_HEADER] = signature;
    await forward(route.service, req, res, next);
  });

  async function forward(service: ServiceName, req: Request, res: Response, next: NextFunction): Promise<void> {
    const length = Number(req.get('content-length') ?? 0);
    if (length > config.BODY_LIMIT_BYTES) throw new HttpError(413, `Request body too large (limit ${config.BODY_LIMIT_BYTES} bytes)`);
    res.locals.service = service;
    // The request's span (when tracing runs) says which service it went to.
    trace.getActiveSpan()?.setAttribute('quire.upstream', service);
    // With several replicas, a small body is read first, so that the request can go to another replica when one refuses it.
    if (length > 0 && length <= RESENDABLE_BODY_BYTES && replicas[service].urls.length > 1) await keepBody(req as Sent, length);
    // The proxy sees the full path: undo express's mount-path stripping.
    req.url = req.originalUrl;
    proxies[service](req, res, next);
  }

  app.use((req: Request) => {
    throw new HttpError(404, `No route for ${req.method} ${req.path}`);
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof HttpError) return sendError(res, error.status, error.message, error.headers);
    logger.error({ err: error }, 'gateway error');
    sendError(res, 500, 'Internal error');
  });
  return app;
}

/** Every service's replicas, from `<SERVICE>_HTTP_URL`. */
export function replicasOf(config: GatewayConfig, logger: Logger): Record<ServiceName, Replicas> {
  return Object.fromEntries(SERVICES.map((service) => [service, watchReplicas(service, httpUrlsOf(config, service), logger)])) as Record<ServiceName, Replicas>;
}

/** The replica a request was sent to, and whether it is a second attempt; its body when kept (keepBody). */
const SENT_TO = Symbol('quire.sentTo');
const BODY = Symbol('quire.body');
const OUTGOING = Symbol('quire.outgoing');
type Sent = Request & { [SENT_TO]?: { url: string; retried: boolean }; [BODY]?: Buffer; [OUTGOING]?: ClientRequest };

/** The largest body the gateway keeps in memory to send again (forward). */
const RESENDABLE_BODY_BYTES = 1024 * 1024;

/** Reads a request's body (of `length` bytes, as it says) into memory, for the proxy to write (proxyTo's proxyReq). */
async function keepBody(req: Sent, length: number): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > length) throw new HttpError(400, 'Bad request: the body is longer than its Content-Length');
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, 'Bad request: the body could not be read');
  }
  req[BODY] = Buffer.concat(chunks);
}

/** Connection failures that mean the replica never got the request: it may go to another one. */
const NOT_RECEIVED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Methods whose request may be sent twice (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether a failed attempt may go to another replica: refused (never received), or, for an
 * idempotent method, reset on a kept-alive connection the replica had closed or died with
 * (it may have been received: sending it twice does no harm). A POST or PATCH reset there is
 * not sent again: the replica may have done it before it went.
 */
function mayResend(req: Sent, code: string): boolean {
  if (NOT_RECEIVED.has(code)) return true;
  return (code === 'ECONNRESET' || code === 'EPIPE') && IDEMPOTENT.has(req.method) && req[OUTGOING]?.reusedSocket === true;
}

/**
 * A request without a body can be sent again as it was (its stream is over: the next proxy
 * pipe ends at once); one with a body cannot, its bytes are gone into the failed attempt.
 */
const canResend = (req: Sent) => req[BODY] !== undefined || (!req.headers['transfer-encoding'] && Number(req.headers['content-length'] ?? 0) === 0);

/** A replica's address as the proxy works with it (the fields of node's legacy url.parse it reads), by URL: made once, not per request. */
const proxyTargets = new Map<string, { protocol: string; hostname: string; host: string; port: string; path: string }>();
function parsedTarget(url: string) {
  let target = proxyTargets.get(url);
  if (!target) {
    const { protocol, hostname, port, pathname } = new URL(url);
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    target = { protocol, hostname: host, host, port: port || (protocol === 'https:' ? '443' : '80'), path: pathname };
    proxyTargets.set(url, target);
  }
  return target;
}

function proxyTo(service: ServiceName, replicas: Replicas, config: GatewayConfig, logger: Logger, siteRevisits: SiteRevisits): RequestHandler {
  const proxy = createProxyMiddleware<Request, Response>({
    target: replicas.urls[0],
    // Round robin over the replicas that answer (replicas.ts); a retry avoids the one that failed.
    // Each replica's address is given parsed, once (the proxy would parse a string per request).
    router: (req) => {
      const sent = req as Sent;
      const url = replicas.pick(sent[SENT_TO]?.url);
      sent[SENT_TO] = { url, retried: sent[SENT_TO] !== undefined };
      return parsedTarget(url);
    },
    // Reuse connections to the services instead of a TCP handshake per request.
    agent: new Agent({ keepAlive: true, maxSockets: 256 }),
    changeOrigin: false,
    xfwd: true,
    proxyTimeout: config.PROXY_TIMEOUT_MS,
    timeout: config.PROXY_TIMEOUT_MS,
    on: {
      // A kept body (forward) is written here: the request stream it came from is read already.
      proxyReq(proxyReq, req) {
        (req as Sent)[OUTGOING] = proxyReq;
        const body = (req as Sent)[BODY];
        if (body === undefined) return;
        proxyReq.setHeader('content-length', body.length);
        proxyReq.write(body);
      },
      // Before its headers are copied: what publishing tells the gateway alone is taken off.
      proxyRes(proxyRes, req) {
        siteRevisits.learn(req, proxyRes);
      },
      error(error, req, res) {
        const sent = (req as Sent)[SENT_TO];
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (sent && (NOT_RECEIVED.has(code) || code === 'ECONNRESET')) replicas.markDown(sent.url);
        const response = res as ServerResponse;
        if (typeof response.writeHead !== 'function' || response.headersSent) {
          response.destroy?.();
          return;
        }
        // Refused by a replica that stopped (or reset, when that is harmless): once more, to another (its body kept, or none).
        if (sent && !sent.retried && replicas.urls.length > 1 && mayResend(req as Sent, code) && canResend(req as Sent)) {
          void proxy(req as Request, response as Response, () => unavailable(response));
          return;
        }
        logger.warn({ service, err: (error as Error).message }, 'service unreachable');
        unavailable(response);
      },
    },
  });
  const unavailable = (response: ServerResponse) => {
    if (response.headersSent) return response.destroy();
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    response.end(JSON.stringify({ error: { code: 503, message: `The ${service} service is unavailable, retry shortly` } }));
  };
  return proxy as unknown as RequestHandler;
}
