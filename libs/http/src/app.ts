import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import {
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  REQUEST_ID_PATTERN,
  SIGNATURE_HEADER,
  isDuplicateKeyError,
  isUnavailableError,
  requestContext,
  verifyPrincipal,
  type Logger,
} from '@quire/runtime';
import { assertBodyDepth } from './depth';
import { HttpError, httpError, sendError } from './errors';
import { redactSecretQuery } from './log-redaction';

export interface ServiceAppOptions {
  logger: Logger;
  /** Shared HMAC key: the principal header is trusted only with its valid signature. */
  secret: string;
  /** True when the service can serve: its database and Redis answer. */
  ready: () => Promise<boolean>;
  /**
   * Synchronous view of the same: false while the database or Redis is down, and then
   * every request answers 503 at once instead of waiting for a datastore that is not there.
   */
  available?: () => boolean;
  bodyLimit?: string;
}

/**
 * The express app every service starts from: request id and principal in the request
 * context, access log, JSON body parsing, health endpoints. Mount routers, then call
 * finishServiceApp.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = await options.ready().catch(() => false);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  app.use((_req, _res, next) => {
    if (options.available && !options.available()) throw datastoreUnavailable();
    next();
  });
  app.use((req, res, next) => {
    const given = req.get(REQUEST_ID_HEADER);
    const requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    res.set(REQUEST_ID_HEADER, requestId);
    const principal = verifyPrincipal(options.secret, req.get(PRINCIPAL_HEADER), req.get(SIGNATURE_HEADER));
    requestContext.run({ requestId, principal, path: req.path }, () => next());
  });
  app.use(accessLog(options.logger));
  app.use(
    express.json({
      limit: options.bodyLimit ?? '10mb',
      // The bytes as sent, for the few routes that pass a body on as it came (an integration's public endpoint).
      verify: (req, _res, buf) => {
        (req as RawBodyRequest).rawBody = buf;
      },
    }),
  );
  app.use((req, _res, next) => {
    assertBodyDepth(req.body);
    next();
  });
  return app;
}

/**
 * Every request's line in the log (pino-http): at `info` when it succeeded, at `error` when it
 * answered 5xx. At a level above `info` only the failures would be written, so only they are
 * followed, without pino-http's per-request logger (a fifth of a busy service's time when
 * nothing else is written).
 */
function accessLog(logger: Logger): RequestHandler {
  const serializers = {
    req: (req: IncomingMessage) => ({ method: req.method, url: redactSecretQuery(req.url ?? '') }),
    res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
  };
  if (logger.isLevelEnabled('info')) {
    return pinoHttp({
      logger,
      genReqId: (_req, res) => String(res.getHeader(REQUEST_ID_HEADER)),
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      serializers,
    });
  }
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      if (res.statusCode < 500) return;
      const responseTime = Math.round(performance.now() - started);
      logger.error({ req: serializers.req(req), res: serializers.res(res), reqId: res.getHeader(REQUEST_ID_HEADER), responseTime }, 'request errored');
    });
    next();
  };
}

/** A request whose JSON body express parsed: `rawBody` holds its bytes as sent. */
export type RawBodyRequest = IncomingMessage & { rawBody?: Buffer };

function datastoreUnavailable(): HttpError {
  return new HttpError(503, 'Service temporarily unavailable: a datastore is not answering, retry shortly', { 'Retry-After': '1' });
}

/** Unknown routes answer 404 and every thrown error becomes the standard error body. */
export function finishServiceApp(app: Express, logger: Logger): Express {
  app.use((req: Request) => {
    throw httpError.notFound(`No route for ${req.method} ${req.path}`.replace(/ not found$/, ''));
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof HttpError) return sendError(res, error.status, error.message, error.headers);
    const status = (error as { status?: number; type?: string }).status;
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') return sendError(res, 413, 'Request body too large');
    if (type === 'entity.parse.failed') return sendError(res, 400, 'Invalid body: not valid JSON');
    if (status && status >= 400 && status < 500) return sendError(res, status, (error as Error).message);
    if (isUnavailableError(error)) {
      logger.warn({ err: (error as Error).message }, 'datastore unavailable');
      const unavailable = datastoreUnavailable();
      return sendError(res, unavailable.status, unavailable.message, unavailable.headers);
    }
    // A unique index refused the twin of a request that is running at the same moment.
    if (isDuplicateKeyError(error)) return sendError(res, 409, 'Conflict: the same change is being made by another request; retry');
    logger.error({ err: error }, 'unhandled error');
    sendError(res, 500, 'Internal error');
  });
  return app;
}
