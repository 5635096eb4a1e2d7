import { clientsOf, httpError, ServiceError, type KeysetPage, type SpaceObject } from '@quire/http';
import { grpcStatus } from '@quire/runtime';
import type { IdentityContext } from './context';
import { memberSubject, teamIdsOfUsers } from './counts';
import { getVisibleOrganization } from './organizations';
import { canViewMemberSpaces } from './permissions';

export interface MemberSpace {
  permission: string;
  space: SpaceObject;
}

/**
 * The spaces a member can access with their role on each, from one content call: content
 * lists them for the member and presents each Space (its permissions) for the caller.
 */
export async function listMemberSpaces(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  userId: string,
  query: { limit: number; page?: string; order: 'asc' | 'desc' },
): Promise<KeysetPage<MemberSpace>> {
  const { membership: caller } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canViewMemberSpaces(caller, callerId === userId)) throw httpError.forbidden("Only organization admins can list another member's spaces");
  const target = await ctx.models.Membership.findOne({ organizationId, userId }).lean();
  if (!target) throw httpError.notFound('Member');
  const teamIds = (await teamIdsOfUsers(ctx, organizationId, [userId])).get(userId) ?? [];
  const listed = await clientsOf(ctx)
    .content.listMemberSpaces({
      ...memberSubject(organizationId, userId, target.role, teamIds),
      pageSize: query.limit,
      pageToken: query.page ?? '',
      order: query.order,
      viewerUserId: callerId,
    })
    .catch((error: unknown) => {
      // Content refuses only what the caller sent us (a page token): that is the caller's 400.
      if (error instanceof ServiceError && error.code === grpcStatus.INVALID_ARGUMENT) throw httpError.badRequest(`Invalid query: page: ${error.details}`);
      throw error;
    });
  const items = listed.items.flatMap((item) => (item.space?.rest ? [{ permission: item.role, space: item.space.rest }] : []));
  return { items, next: listed.nextPageToken || undefined, count: listed.totalSize };
}
