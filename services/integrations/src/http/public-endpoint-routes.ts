import { z } from 'zod';
import { apiUrl, createRateLimiter, httpError, route, type RawBodyRequest, type Route } from '@quire/http';
import type { Request } from 'express';
import type { IntegrationsContext } from '../domain/context';
import { fetchPublicEndpoint } from '../domain/public-endpoint';
import { integrationParams } from './integration-schemas';

/** What a caller may send an integration's endpoint. */
const MAX_BODY_BYTES = 1024 * 1024;
const ENDPOINT = '/v1/public/integrations/:integrationName/integration';
const subPathParams = integrationParams.extend({ path: z.string().min(1).max(200) });

/** The body as it came: express's parsed JSON keeps its bytes; any other type is read here, bounded. */
async function bodyOf(req: Request): Promise<Uint8Array | undefined> {
  const raw = (req as RawBodyRequest).rawBody;
  if (raw) return raw;
  if (req.readableEnded || req.method === 'GET') return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw httpError.tooLarge(`Request body too large: at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The integration's public endpoint (`urls.publicEndpoint`, and one level below it, e.g. its
 * OAuth callback `…/integration/oauth`): answered by its published script, without a token.
 * At most INTEGRATION_ENDPOINT_RATE_PER_MINUTE calls per integration and minute, all callers and
 * replicas together (429 with Retry-After past it): one busy endpoint cannot take every worker.
 */
export function publicEndpointRoutes(ctx: IntegrationsContext): Route[] {
  const consumeRate = createRateLimiter({
    redis: ctx.redis,
    points: ctx.config.INTEGRATION_ENDPOINT_RATE_PER_MINUTE,
    durationSeconds: 60,
    keyPrefix: 'integration-endpoint-rate',
  });
  return (['get', 'post'] as const).flatMap((method) =>
    [ENDPOINT, `${ENDPOINT}/:path`].map((path) =>
      route({
        method,
        path,
        summary: `${method.toUpperCase()} the integration's public endpoint, answered by its script`,
        produces: '*/*',
        alsoAnswers: { '3XX': 'A redirect the script answered (its Location, when http or https)' },
        access: 'public',
        params: path === ENDPOINT ? integrationParams : subPathParams,
        handler: async ({ params, req, res }) => {
          await consumeRate(params.integrationName, res);
          const answer = await fetchPublicEndpoint(ctx, params.integrationName, {
            method: req.method,
            url: apiUrl(ctx.config.PUBLIC_BASE_URL, req.originalUrl),
            headers: req.headers,
            body: await bodyOf(req),
          });
          res.status(answer.status);
          for (const [name, value] of answer.headers) res.append(name, value);
          // Whatever the script serves is its own, not Quire's: a sandboxed page that cannot act as this origin.
          res.set({ 'content-security-policy': 'sandbox', 'x-content-type-options': 'nosniff' });
          res.end(Buffer.from(answer.body));
        },
      }),
    ),
  );
}
