import { httpError, type KeysetPage } from '@quire/http';
import type { IdentityContext } from './context';
import { callContent, memberSubject, teamIdsOfUsers } from './counts';
import { getVisibleOrganization } from './organizations';
import { canViewMemberSpaces } from './permissions';

export interface MemberSpace {
  permission: string;
  space: Record<string, unknown>;
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
  const listed = await callContent(ctx, (content) =>
    content.listMemberSpaces({
      ...memberSubject(organizationId, userId, target.role, teamIds),
      pageSize: query.limit,
      pageToken: query.page ?? '',
      order: query.order,
      viewerUserId: callerId,
    }),
  );
  const parse = (json: string) => JSON.parse(json) as Record<string, unknown>;
  const items = listed.items.filter((item) => item.space?.restJson).map((item) => ({ permission: item.role, space: parse(item.space!.restJson) }));
  return { items, next: listed.nextPageToken || undefined, count: listed.totalSize };
}
