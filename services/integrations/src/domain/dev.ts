import { httpError } from '@quire/http';
import type { IntegrationDoc } from '../db/models';
import type { IntegrationsContext } from './context';
import { checkEgressUrlForm, EgressError, egressPolicyOf } from './egress-fetch';

/*
 * Dev mode (GitBook's `gitbook dev`): the integration's events go by HTTP POST to a tunnel
 * (the developer's local dev server) instead of its published script: those of its owner
 * organization's installation only, or every installation's with `all`.
 */

/** The tunnel an event of `organizationId`'s installation goes to, if the integration is in dev mode for it. */
export function deliversToTunnel(integration: Pick<IntegrationDoc, 'dev' | 'ownerOrganizationId'>, organizationId: string): string | undefined {
  const dev = integration.dev;
  if (!dev?.tunnelUrl) return undefined;
  return dev.all || organizationId === integration.ownerOrganizationId ? dev.tunnelUrl : undefined;
}

/**
 * Turns dev mode on. The tunnel must be an http(s) URL whose host is not an address the egress
 * policy refuses (loopback and private networks only with INTEGRATIONS_ALLOW_PRIVATE_NETWORKS).
 * Its name need not resolve now (a tunnel often starts after it is set): it is resolved and
 * checked, and the address pinned, at each delivery, which fails while it does not.
 */
export async function setDevMode(
  ctx: IntegrationsContext,
  integration: Pick<IntegrationDoc, '_id'>,
  input: { tunnelUrl: string; all: boolean },
): Promise<void> {
  try {
    checkEgressUrlForm(input.tunnelUrl, egressPolicyOf(ctx.config));
  } catch (error) {
    if (error instanceof EgressError) throw httpError.badRequest(`Invalid body: tunnelUrl: ${error.message}`);
    throw error;
  }
  const { matchedCount } = await ctx.models.Integration.updateOne({ _id: integration._id }, { $set: { dev: { tunnelUrl: input.tunnelUrl, all: input.all } } });
  if (!matchedCount) throw httpError.notFound('Integration');
}

/** Turns dev mode off (nothing to do when it was off). */
export async function clearDevMode(ctx: IntegrationsContext, integration: Pick<IntegrationDoc, '_id'>): Promise<void> {
  await ctx.models.Integration.updateOne({ _id: integration._id, dev: { $ne: null } }, { $set: { dev: null } });
}
