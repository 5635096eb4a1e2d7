import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import {
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  SIGNATURE_HEADER,
  requestContext,
  verifyPrincipal,
  type Logger,
  type Principal,
} from '@quire/runtime';
import { HttpError, httpError, sendError } from './errors';
import { redactSecretQuery } from './log-redaction';

export interface ServiceAppOptions {
  logger: Logger;
  /** Shared HMAC key: the principal header is trusted only with its valid signature. */
  secret: string;
  /** True when the service can serve: its database and Redis answer. */
  ready: () => Promise<boolean>;
  bodyLimit?: string;
}

const REQUEST_ID_PATTERN = /^[\w.-]{1,128}$/;

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
  app.use((req, res, next) => {
    const given = req.get(REQUEST_ID_HEADER);
    const requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    res.set(REQUEST_ID_HEADER, requestId);
    const principal = verifyPrincipal(options.secret, req.get(PRINCIPAL_HEADER), req.get(SIGNATURE_HEADER));
    requestContext.run({ requestId, principal }, () => next());
  });
  app.use(
    pinoHttp({
      logger: options.logger,
      genReqId: (_req, res) => String(res.getHeader(REQUEST_ID_HEADER)),
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: { req: (req) => ({ method: req.method, url: redactSecretQuery(req.url) }), res: (res) => ({ statusCode: res.statusCode }) },
    }),
  );
  app.use(express.json({ limit: options.bodyLimit ?? '10mb' }));
  return app;
}

/** The caller of this request, or a 401 when the gateway did not vouch for one. */
export function principalOf(_req: Request): Principal {
  const principal = requestContext.getStore()?.principal;
  if (!principal) throw httpError.unauthorized();
  return principal;
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
    logger.error({ err: error }, 'unhandled error');
    sendError(res, 500, 'Internal error');
  });
  return app;
}
