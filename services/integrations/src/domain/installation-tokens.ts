import { clientsOf, ServiceError } from '@quire/http';
import { grpcStatus } from '@quire/runtime';
import type { InstallationDoc, IntegrationDoc } from '../db/models';
import type { IntegrationsContext } from './context';
import { currentAccess } from './installation-access';

/*
 * Installation tokens: what an installation's script calls the API back with
 * (`environment.apiTokens.installation`, @gitbook/runtime's `context.api`). Identity issues them
 * (IssueInstallationToken), valid an hour in the installation's organization only, with the
 * access the installation has (installation-access.ts: the scopes its installer approved, which
 * give it a role, and the spaces and sites it covers). Each issue gives identity that access
 * again; a change of it is given at once (accessChanged), for the live tokens too. A token is
 * reused for the installation's deliveries while it has at least REUSE_MARGIN_MS to live and the
 * integration's scopes and title are the ones it was issued for; then a new one is issued.
 * Removing the installation or the integration revokes them all (RevokeInstallationTokens) for good.
 */

/** A delivery is given a token with at least this long to live (a script may run a while, a dev server longer). */
const REUSE_MARGIN_MS = 15 * 60 * 1000;
/** Tokens kept in this process at most (the oldest go first). */
const MAX_CACHED = 10_000;

interface CachedToken {
  token: string;
  expiresAt: number;
  /** What the token was issued for: another integration version's scopes or title need a new one. */
  issuedFor: string;
}

const caches = new WeakMap<IntegrationsContext, Map<string, CachedToken>>();

function cacheOf(ctx: IntegrationsContext): Map<string, CachedToken> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  return cache;
}

/**
 * A token with which the installation's script calls the API as the installation; '' when none
 * can be had: identity refuses one because the installation's tokens were revoked (it is being
 * removed), or identity cannot be reached (logged). The event is delivered all the same: a
 * script that calls the API then gets 401s, fails, and its delivery is attempted again.
 */
export async function installationToken(ctx: IntegrationsContext, integration: IntegrationDoc, installation: InstallationDoc): Promise<string> {
  const cache = cacheOf(ctx);
  const issuedFor = JSON.stringify([integration._id, integration.title, [...integration.scopes].sort()]);
  const cached = cache.get(installation._id);
  if (cached && cached.issuedFor === issuedFor && cached.expiresAt - Date.now() >= REUSE_MARGIN_MS) return cached.token;
  // Re-inserted below: the map's order is the order of issue, the oldest first out.
  cache.delete(installation._id);
  let issued: { token: string; expireTime?: Date };
  try {
    const { version, ...access } = await currentAccess(ctx, integration, installation);
    issued = await clientsOf(ctx).identity.issueInstallationToken({ ...access, accessVersion: version });
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === grpcStatus.FAILED_PRECONDITION))
      ctx.logger.warn({ err: error, installationId: installation._id }, 'no installation token: identity could not issue one');
    return '';
  }
  cache.set(installation._id, { token: issued.token, expiresAt: issued.expireTime?.getTime() ?? 0, issuedFor });
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return issued.token;
}

/**
 * Revokes every token of these installations (uninstalled, or their integration deleted): they
 * answer 401 from then on, and none is issued for them again. Identity unavailable is a 503.
 */
export async function revokeInstallationTokens(ctx: IntegrationsContext, installationIds: readonly string[]): Promise<void> {
  const cache = cacheOf(ctx);
  try {
    await clientsOf(ctx).identity.revokeInstallationTokens({ installationIds });
  } finally {
    // Forgotten whatever identity answered: a token of an installation not revoked yet is simply issued again.
    for (const installationId of installationIds) cache.delete(installationId);
  }
}
