import { clientsOf } from '@quire/http';
import {
  membershipCacheOf,
  membershipFromProto,
  outsideTokenScope,
  requestContext,
  type CachedMembership,
  type InstallationReach,
  type RequestContext,
} from '@quire/runtime';
import type { ContentContext } from '../kernel';
import type { Standing } from './roles';

/** A caller's membership in one organization (identity's answer, reduced to what access needs). */
export interface MemberStanding extends Standing {
  organizationId: string;
  userId: string;
  teamIds: string[];
  /** Set for an integration installation's user: the only spaces it may act on (the others are invisible to it). */
  installationReach?: InstallationReach;
}

// Per request, a caller's membership is asked at most once, however many spaces the request touches.
const perRequest = new WeakMap<RequestContext, Map<string, Promise<MemberStanding>>>();

/**
 * The user's standing in the organization: from this process's membership cache (which
 * identity's invalidations keep current), else one identity.GetMembership per request and org.
 * A caller whose token is scoped to another organization stands there as a non-member: that
 * check comes first, whatever the cache holds.
 */
export function getStanding(ctx: ContentContext, organizationId: string, userId: string): Promise<MemberStanding> {
  if (outsideTokenScope(organizationId, userId)) return Promise.resolve(nonMember(organizationId, userId));
  const store = requestContext.getStore();
  const key = `${organizationId}\n${userId}`;
  const cache = store ? (perRequest.get(store) ?? new Map<string, Promise<MemberStanding>>()) : undefined;
  if (store && cache && !perRequest.has(store)) perRequest.set(store, cache);
  const cached = cache?.get(key);
  if (cached) return cached;
  const loaded = membershipCacheOf(ctx.redis, ctx.logger)
    .get(organizationId, userId, async () => membershipFromProto((await clientsOf(ctx).identity.getMembership({ organizationId, userId })).membership))
    .then((membership) => toStanding(organizationId, userId, membership));
  cache?.set(key, loaded);
  loaded.catch(() => cache?.delete(key));
  return loaded;
}

/**
 * Memberships of one user in several organizations: the cached ones, the others in one call
 * (absent = not a member; so are the organizations outside the caller's token scope).
 */
export async function getStandings(ctx: ContentContext, userId: string, organizationIds: string[]): Promise<Map<string, MemberStanding>> {
  const unique = [...new Set(organizationIds)].filter((organizationId) => !outsideTokenScope(organizationId, userId));
  const result = new Map<string, MemberStanding>();
  if (!userId || unique.length === 0) return result;
  const memberships = await membershipCacheOf(ctx.redis, ctx.logger).getMany(userId, unique, async (missing) => {
    const { memberships: found } = await clientsOf(ctx).identity.batchGetMemberships({ userId, organizationIds: missing });
    return new Map(found.map((membership) => [membership.organizationId, membershipFromProto(membership)]));
  });
  for (const [organizationId, membership] of memberships) {
    // identity answers only for memberships it holds (disabled ones included), as before the cache.
    if (membership.member || membership.disabled) result.set(organizationId, toStanding(organizationId, userId, membership));
  }
  return result;
}

export function nonMember(organizationId: string, userId: string): MemberStanding {
  return { organizationId, userId, member: false, orgRole: null, teamIds: [] };
}

function toStanding(organizationId: string, userId: string, membership: CachedMembership): MemberStanding {
  if (!membership.member || membership.disabled) return nonMember(organizationId, userId);
  const standing: MemberStanding = { organizationId, userId, member: true, orgRole: membership.role, teamIds: [...membership.teamIds] };
  if (membership.installationReach) standing.installationReach = membership.installationReach;
  return standing;
}
