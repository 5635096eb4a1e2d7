import type { EgressPolicy } from '@quire/runtime';

/*
 * Outbound HTTP for integrations (deliveries to a dev tunnel, a script's fetch) goes through the
 * runtime's egress requests (libs/runtime egress-fetch.ts: the policy checked, addresses pinned,
 * no redirects followed, bounded in time and size), under this service's policy.
 */
export { checkEgressUrl, checkEgressUrlForm, EgressError, egressFetch, egressRequest, type EgressRequest, type EgressResponse } from '@quire/runtime';

export const egressPolicyOf = (config: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: boolean }): EgressPolicy => ({
  allowPrivateNetworks: config.INTEGRATIONS_ALLOW_PRIVATE_NETWORKS,
});
