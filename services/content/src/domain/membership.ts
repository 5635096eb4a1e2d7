import { fromService } from '@quire/http';
import { requestContext, roleFromProto, type RequestContext } from '@quire/runtime';
import type { ContentContext } from './context';
import type { Standing } from './roles';

/** A caller's membership in one organization (identity's answer, reduced to what access needs). */
export interface MemberStanding extends Standing {
  organizationId: string;
  userId: string;
  teamIds: string[];
}

// Per request, a caller's membership is asked at most once, however many spaces the request touches.
const perRequest = new WeakMap<RequestContext, Map<string, Promise<MemberStanding>>>();

/** The user's standing in the organization: one identity.GetMembership per request and org. */
export function getStanding(ctx: ContentContext, organizationId: string, userId: string): Promise<MemberStanding> {
  const store = requestContext.getStore();
  const key = `${organizationId}\n${userId}`;
  const cache = store ? (perRequest.get(store) ?? new Map<string, Promise<MemberStanding>>()) : undefined;
  if (store && cache && !perRequest.has(store)) perRequest.set(store, cache);
  const cached = cache?.get(key);
  if (cached) return cached;
  const loaded = fromService('Identity', ctx.clients.identity.getMembership({ organizationId, userId })).then(({ membership }) => toStanding(organizationId, userId, membership));
  cache?.set(key, loaded);
  loaded.catch(() => cache?.delete(key));
  return loaded;
}

/** Memberships of one user in several organizations in one call (absent = not a member). */
export async function getStandings(ctx: ContentContext, userId: string, organizationIds: string[]): Promise<Map<string, MemberStanding>> {
  const unique = [...new Set(organizationIds)];
  const result = new Map<string, MemberStanding>();
  if (!userId || unique.length === 0) return result;
  const { memberships } = await fromService('Identity', ctx.clients.identity.batchGetMemberships({ userId, organizationIds: unique }));
  for (const membership of memberships) result.set(membership.organizationId, toStanding(membership.organizationId, userId, membership));
  return result;
}

export function nonMember(organizationId: string, userId: string): MemberStanding {
  return { organizationId, userId, member: false, orgRole: null, teamIds: [] };
}

function toStanding(
  organizationId: string,
  userId: string,
  membership: { member: boolean; role: number; teamIds: string[]; disabled: boolean } | undefined,
): MemberStanding {
  if (!membership || !membership.member || membership.disabled) return nonMember(organizationId, userId);
  return { organizationId, userId, member: true, orgRole: roleFromProto(membership.role), teamIds: [...membership.teamIds] };
}
