import { isIP } from 'node:net';
import { EgressLookupError, EgressRefusedError, resolveEgressAddresses, type AddressLookup } from '@quire/runtime';
import { GitSyncError } from './errors';
import type { GitConfig } from './settings';

/*
 * Where a job's git may connect. The repository host is resolved once, before git runs,
 * and every address it resolves to must be allowed (libs' egress policy: public unicast
 * only, unless GIT_ALLOW_PRIVATE_NETWORKS); git is then pinned to those addresses
 * (curl's resolve list), so a name that resolves elsewhere by the time git connects (DNS
 * rebinding) still reaches only what was checked. Redirects are not followed at all
 * (runner.ts), so no other host is ever contacted.
 */

/**
 * The one reason for a repository host that resolves to a refused address and for one that
 * does not resolve at all: two reasons would let a caller probe which internal names exist.
 */
export const ADDRESS_REFUSED = 'refused: the repository address does not resolve or is not allowed';

/**
 * The curl resolve entries (`host:port:address,…`) pinning the repository's host to its
 * checked addresses; none for a local (file) repository or an IP literal (nothing to
 * resolve). Throws GitSyncError with a generic reason: the detail (which address, which
 * range) goes to the log only, so git info cannot be used to map internal networks.
 */
export async function pinRepositoryHost(url: string, settings: Pick<GitConfig, 'GIT_ALLOW_PRIVATE_NETWORKS'>, lookup?: AddressLookup): Promise<string[]> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return [];
  let addresses: string[];
  try {
    addresses = await resolveEgressAddresses(parsed.hostname, { allowPrivateNetworks: settings.GIT_ALLOW_PRIVATE_NETWORKS }, lookup);
  } catch (error) {
    if (error instanceof EgressRefusedError || error instanceof EgressLookupError) throw new GitSyncError(ADDRESS_REFUSED, error.detail);
    throw error;
  }
  if (isIP(parsed.hostname.replace(/^\[(.*)\]$/, '$1')) !== 0) return [];
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  const list = addresses.map((address) => (address.includes(':') ? `[${address}]` : address)).join(',');
  return [`${parsed.hostname}:${port}:${list}`];
}
