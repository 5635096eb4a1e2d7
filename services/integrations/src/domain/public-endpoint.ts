import { HttpError, httpError } from '@quire/http';
import { newId } from '@quire/runtime';
import type { IntegrationDoc } from '../db/models';
import { dispatchRequest, type ScriptResponse } from '../runtime';
import type { IntegrationsContext } from './context';
import { environmentOf, runIntegrationScript } from './delivery';

/*
 * An integration's public endpoint (`urls.publicEndpoint`): what GitBook forwards to the
 * integration's own `fetch` handler (webhooks from third parties, OAuth callbacks). The request
 * becomes GitBook's `fetch` event — `{type: 'fetch', request: {url, method, headers}}` with the
 * body as the `fetch-body` field — run by the published script, and its Response is the answer.
 * Private integrations have none (a 404, like every address of theirs to outsiders); dev mode
 * does not reach it: the published script answers.
 */

/** Request headers never handed to the script: the caller's credentials for Quire, and the gateway's own. */
const WITHHELD_HEADERS = new Set(['authorization', 'cookie', 'x-quire-principal', 'x-quire-signature', 'host', 'connection', 'content-length']);
/** Response headers the script may not set: framing is ours, and its page must not act as Quire. */
const REFUSED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'set-cookie', 'content-security-policy', 'x-content-type-options']);

export interface PublicRequest {
  method: string;
  /** The address as the caller used it (the public base URL with the path and query). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Uint8Array;
}

/** Runs the integration's script on a request made to its public endpoint, and answers what it answers. */
export async function fetchPublicEndpoint(ctx: IntegrationsContext, integrationName: string, request: PublicRequest): Promise<ScriptResponse> {
  const integration = await ctx.models.Integration.findById(integrationName).lean<IntegrationDoc>();
  if (!integration || integration.visibility === 'private') throw httpError.notFound('Integration');
  if (!integration.script) throw httpError.notFound('Integration endpoint');
  const headers = Object.entries(request.headers)
    .filter(([name, value]) => value !== undefined && !WITHHELD_HEADERS.has(name.toLowerCase()))
    .map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value)] as [string, string]);
  const event = { eventId: `fetch-${newId()}`, type: 'fetch', request: { url: request.url, method: request.method, headers: Object.fromEntries(headers) } };
  const dispatched = await dispatchRequest({
    event,
    environment: await environmentOf(ctx, integration, null, event),
    fetchBody: request.body && request.body.length > 0 ? request.body : undefined,
  });
  const result = await runIntegrationScript(ctx, integration.script, dispatched);
  if (!result.response) {
    ctx.logger.info({ integration: integration._id, error: result.error }, 'an integration endpoint script failed');
    throw new HttpError(502, 'The integration failed to answer');
  }
  return { ...result.response, headers: result.response.headers.filter(([name]) => !REFUSED_HEADERS.has(name)) };
}
