import type { ScriptRequest } from './types';

/**
 * How the platform hands an event to a GitBook integration script, as @gitbook/runtime's
 * createIntegration (0.23) reads it:
 *
 * - `POST` to the script's `fetch(request, env, ctx)` handler, path `/v1` (the runtime answers
 *   400 "Unsupported version" to any other path when built in production mode);
 * - a multipart/form-data body with the fields
 *   - `event`: the event as JSON (`eventId`, `type`, and the type's own fields),
 *   - `environment`: the IntegrationEnvironment as JSON, from which the runtime builds its
 *     GitBookAPI clients (`apiEndpoint`, `apiTokens`, `integration.name`/`version`),
 *   - `fetch-body`: only for `fetch` events, the body of the HTTP request being forwarded;
 * - no signature or header is checked: the runtime trusts its dispatcher (`signingSecrets`
 *   are passed for the script to verify requests of its own, e.g. webhooks);
 * - `ctx.waitUntil` must exist (the runtime passes it on as context.waitUntil);
 * - it answers `200 OK` once the event's handlers resolved; `406` for an event type it has no
 *   handler for; for a thrown error, `500 {"error":"Internal server error"}` (or the status of
 *   an ExposableError and its message), after console.error of the stack. `fetch`, `ui_render`
 *   and the like answer whatever their handler returns.
 */

/** The URL the dispatch request is sent to: only its path, `/v1`, means anything to the runtime. */
export const DISPATCH_URL = 'https://integrations.quire.invalid/v1';

/** An event as @gitbook/api's `Event` union: its common fields, then the type's own. */
export interface IntegrationEvent {
  eventId: string;
  type: string;
  [field: string]: unknown;
}

/** An installation on a space or a site (@gitbook/api IntegrationContentInstallationBase). */
export interface IntegrationContentInstallation {
  /** The integration's name. */
  integration: string;
  /** The installation's id. */
  installation: string;
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
  urls: Record<string, string>;
  [field: string]: unknown;
}

/**
 * The `environment` field: @gitbook/api's IntegrationEnvironment, with the parts the runtime
 * needs spelled out and the rest left open (the scripts may read any of it).
 */
export interface IntegrationEnvironment {
  /** URL of the HTTP API, the endpoint of the script's GitBookAPI clients. */
  apiEndpoint: string;
  apiTokens: {
    /** Token representing the integration (context.integration.api). */
    integration: string;
    /** Token representing the installation the event is for (context.api, when present). */
    installation?: string;
  };
  /** The integration (@gitbook/api Integration); `name` and `version` make the clients' user agent. */
  integration: { name: string; version: number; [field: string]: unknown };
  /** The installation at the organization level (@gitbook/api IntegrationInstallation). */
  installation?: { id: string; status: string; configuration: Record<string, unknown>; [field: string]: unknown };
  spaceInstallation?: IntegrationContentInstallation & { space: string };
  siteInstallation?: IntegrationContentInstallation & { site: string };
  /** Secrets stored on the integration. */
  secrets: Record<string, string>;
  /** Secrets the script can verify incoming HTTP requests with, per level. */
  signingSecrets: { integration: string; installation?: string; spaceInstallation?: string; siteInstallation?: string };
  /** @deprecated in @gitbook/api: the installation's or the integration's token. */
  authToken?: string;
  /** @deprecated in @gitbook/api: signingSecrets.integration. */
  signingSecret?: string;
  network?: { proxy?: boolean };
}

export interface DispatchInput {
  event: IntegrationEvent;
  environment: IntegrationEnvironment;
  /** For `fetch` events: the forwarded request's body. */
  fetchBody?: string | Uint8Array;
}

/** The request that delivers `event` to a GitBook integration script (see above). */
export async function dispatchRequest({ event, environment, fetchBody }: DispatchInput): Promise<ScriptRequest> {
  const form = new FormData();
  form.append('event', JSON.stringify(event));
  form.append('environment', JSON.stringify(environment));
  if (fetchBody !== undefined) form.append('fetch-body', typeof fetchBody === 'string' ? fetchBody : new Blob([fetchBody]));
  // The platform's own Request serialises the form and picks the boundary.
  const request = new Request(DISPATCH_URL, { method: 'POST', body: form });
  return {
    method: request.method,
    url: request.url,
    headers: [...request.headers],
    body: new Uint8Array(await request.arrayBuffer()),
  };
}
