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
 * The spaces a member can access with their role on each. A member asking for their own spaces
 * gets them from one content call (content presents them for that member); an admin asking for
 * someone else's needs one more batched call, so each Space carries the admin's own permissions.
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
  const items = await presentForCaller(ctx, callerId, userId, listed.items);
  return { items, next: listed.nextPageToken || undefined, count: listed.totalSize };
}

type ListedSpace = { space?: { id: string; restJson: string }; role: string };

async function presentForCaller(ctx: IdentityContext, callerId: string, userId: string, listed: ListedSpace[]): Promise<MemberSpace[]> {
  const parse = (json: string) => JSON.parse(json) as Record<string, unknown>;
  if (callerId === userId) {
    return listed.filter((item) => item.space?.restJson).map((item) => ({ permission: item.role, space: parse(item.space!.restJson) }));
  }
  const ids = listed.map((item) => item.space?.id).filter((id): id is string => !!id);
  const presented = ids.length ? (await callContent(ctx, (content) => content.batchGetSpaces({ ids, viewerUserId: callerId }))).spaces : [];
  const byId = new Map(presented.filter((s) => s.restJson).map((s) => [s.id, parse(s.restJson)]));
  return listed.filter((item) => item.space && byId.has(item.space.id)).map((item) => ({ permission: item.role, space: byId.get(item.space!.id)! }));
}
