import { createBudget, HttpError, httpError } from '@quire/http';
import { newId } from '@quire/runtime';
import type { IntegrationDoc } from '../db/models';
import { dispatchRequest, type ScriptResponse } from '../runtime';
import type { IntegrationsContext } from './context';
import { environmentOf } from './delivery';
import { runIntegrationScript, ScriptRunBusyError } from './script-runs';

/*
 * An integration's public endpoint (`urls.publicEndpoint`): what GitBook forwards to the
 * integration's own `fetch` handler (webhooks from third parties, OAuth callbacks). The request
 * becomes GitBook's `fetch` event — `{type: 'fetch', request: {url, method, headers}}` with the
 * body as the `fetch-body` field — run by the published script, and its Response is the answer.
 * Private integrations have none (a 404, like every address of theirs to outsiders); dev mode
 * does not reach it: the published script answers.
 *
 * The answer is rebuilt, never passed through (it is served from the API's origin): a status
 * from 200 to 599, and only the headers of ANSWER_HEADERS (names in any case), with bounded,
 * printable values. A status outside that range, or an allowed header with a value that is too
 * long or holds control characters, is refused with a 502 saying why; other headers are dropped.
 * Runs count against the owner's share (script-runs.ts) without waiting: over it, 429.
 */

/** Request headers never handed to the script: the caller's credentials for Quire, and the gateway's own. */
const WITHHELD_HEADERS = new Set(['authorization', 'cookie', 'x-quire-principal', 'x-quire-signature', 'host', 'connection', 'content-length']);
/**
 * Response headers the script may set: how to read and cache its body, and where to go next
 * (OAuth callbacks redirect). Framing, cookies, security policies and everything else are ours.
 */
const ANSWER_HEADERS = new Set([
  'content-type',
  'content-language',
  'content-disposition',
  'cache-control',
  'etag',
  'last-modified',
  'expires',
  'vary',
  'location',
  'retry-after',
]);
const MAX_HEADER_VALUE_LENGTH = 4096;
/** Names and values of the kept headers together: well within what proxies in front accept (16 KiB of headers in node). */
const MAX_HEADER_BYTES = 8192;
/** Printable ASCII, spaces and tabs: no CR, LF or other control character. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Seconds a caller over the limits is asked to wait. */
const BUSY_RETRY_AFTER_SECONDS = 1;

export interface PublicRequest {
  method: string;
  /** The address as the caller used it (the public base URL with the path and query). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Uint8Array;
}

const budgets = new WeakMap<IntegrationsContext, ReturnType<typeof createBudget>>();

/**
 * The script CPU time each organization's endpoints may use per minute: anyone may call an
 * endpoint, so without it a hostile script's callers could keep every worker busy with loops
 * that each stop only at the run's CPU limit.
 */
function cpuBudgetOf(ctx: IntegrationsContext): ReturnType<typeof createBudget> {
  let budget = budgets.get(ctx);
  if (!budget) {
    budget = createBudget({ redis: ctx.redis, points: ctx.config.ENDPOINT_SCRIPT_CPU_MS_PER_MINUTE, durationSeconds: 60, keyPrefix: 'endpoint-script-cpu' });
    budgets.set(ctx, budget);
  }
  return budget;
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
  const owner = { integrationName: integration._id, organizationId: integration.ownerOrganizationId };
  const budget = cpuBudgetOf(ctx);
  const exhaustedMs = await budget.exhaustedFor(owner.organizationId);
  if (exhaustedMs > 0) {
    const seconds = Math.ceil(exhaustedMs / 1000);
    throw new HttpError(429, `The organization's integrations used their script time for this minute: retry in ${seconds} s`, {
      'Retry-After': String(seconds),
    });
  }
  let result;
  try {
    result = await runIntegrationScript(ctx, integration.script, dispatched, owner, { waitForSlotMs: 0 });
  } catch (error) {
    if (!(error instanceof ScriptRunBusyError)) throw error;
    const retryAfter = { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) };
    throw new HttpError(error.scope === 'service' ? 503 : 429, `${error.message}: retry shortly`, retryAfter);
  }
  await budget.spend(owner.organizationId, result.cpuMs);
  if (!result.response) {
    ctx.logger.info({ integration: integration._id, error: result.error }, 'an integration endpoint script failed');
    throw new HttpError(502, 'The integration failed to answer');
  }
  return answerOf(result.response, request.url);
}

/** The script's answer as the endpoint gives it (see above); throws the 502 that says what was wrong. */
function answerOf(response: ScriptResponse, requestUrl: string): ScriptResponse {
  const refuse = (reason: string) => new HttpError(502, `The integration's answer was refused: ${reason}`);
  const { status } = response;
  if (!Number.isInteger(status) || status < 200 || status > 599) throw refuse(`its status ${status} is not one from 200 to 599`);
  const headers: Array<[string, string]> = [];
  let size = 0;
  for (const [given, value] of response.headers) {
    const name = given.toLowerCase();
    if (!ANSWER_HEADERS.has(name)) continue;
    if (value.length > MAX_HEADER_VALUE_LENGTH) throw refuse(`its ${name} header is longer than ${MAX_HEADER_VALUE_LENGTH} characters`);
    if (!HEADER_VALUE.test(value)) throw refuse(`its ${name} header holds control or non-ASCII characters`);
    if (name === 'location' && !isWebAddress(value, requestUrl)) throw refuse('its location header is not an http(s) address');
    headers.push([name, value]);
    size += name.length + value.length;
  }
  if (size > MAX_HEADER_BYTES) throw refuse(`its headers are larger than ${MAX_HEADER_BYTES} bytes together`);
  return { status, headers, body: response.body };
}

function isWebAddress(value: string, base: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value, base).protocol);
  } catch {
    return false;
  }
}
