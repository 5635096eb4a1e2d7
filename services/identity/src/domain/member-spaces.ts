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
 * The spaces a member can access with their role on each: one content call for the page, and
 * one batched call presenting those spaces as the caller sees them (the REST Space object).
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
    }),
  );
  const ids = listed.items.map((item) => item.space?.id).filter((id): id is string => !!id);
  const presented = ids.length ? (await callContent(ctx, (content) => content.batchGetSpaces({ ids, viewerUserId: callerId }))).spaces : [];
  const byId = new Map(presented.filter((s) => s.restJson).map((s) => [s.id, JSON.parse(s.restJson) as Record<string, unknown>]));
  const items = listed.items
    .filter((item) => item.space && byId.has(item.space.id))
    .map((item) => ({ permission: item.role, space: byId.get(item.space!.id)! }));
  return { items, next: listed.nextPageToken || undefined, count: listed.totalSize };
}
