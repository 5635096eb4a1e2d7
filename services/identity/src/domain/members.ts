import { createHmac } from 'node:crypto';
import { EVENTS } from '@quire/async';
import { containsText, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { withRedisLock, type Role } from '@quire/runtime';
import type { MembershipDoc, UserDoc } from '../db/models';
import type { IdentityContext } from './context';
import { memberCounts, type MemberCounts } from './counts';
import { changingMembers } from './invalidations';
import { getVisibleOrganization, memberSearchFields } from './organizations';
import { canAdministrate, canRemoveMember, canViewMember, organizationPermissions } from './permissions';
import { getUsers } from './users';

export interface MemberView {
  membership: MembershipDoc;
  user: UserDoc;
  counts: MemberCounts;
}

export interface MemberListQuery {
  limit: number;
  page?: string;
  order: 'asc' | 'desc';
  role?: Role | 'guest';
  search?: string;
  sort: 'joinedAt' | 'lastSeenAt' | 'name';
}

const SORT_FIELDS = { joinedAt: 'joinedAt', lastSeenAt: 'lastSeenAt', name: 'sortName' } as const;

/** Users and counts for a page of memberships, in batched queries. */
export async function viewsOf(ctx: IdentityContext, organizationId: string, memberships: MembershipDoc[]): Promise<MemberView[]> {
  const [users, counts] = await Promise.all([
    getUsers(
      ctx,
      memberships.map((m) => m.userId),
    ),
    memberCounts(ctx, organizationId, memberships),
  ]);
  const byId = new Map(users.map((u) => [u._id, u]));
  return memberships
    .filter((m) => byId.has(m.userId))
    .map((membership) => ({ membership, user: byId.get(membership.userId)!, counts: counts.get(membership.userId) ?? { spaces: 0, teams: 0, sites: 0 } }));
}

/** Organization members, filtered by role and text, sorted by join date, last activity or name. */
export async function listMembers(ctx: IdentityContext, callerId: string, organizationId: string, query: MemberListQuery): Promise<KeysetPage<MemberView>> {
  const { membership: caller } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!organizationPermissions(caller).listMembers) throw httpError.forbidden('You may not list the members of this organization');
  const filter: Record<string, unknown> = { organizationId };
  if (query.role) filter.role = query.role === 'guest' ? null : query.role;
  if (query.search) {
    const pattern = containsText(query.search);
    filter.$or = [{ displayName: pattern }, { email: pattern }];
  }
  // Sorting by activity lists only active members (spec): enabled, and seen at least once.
  if (query.sort === 'lastSeenAt') Object.assign(filter, { lastSeenAt: { $exists: true, $ne: null }, disabled: false });
  const page = await keysetPage(ctx.models.Membership, {
    filter,
    sortField: SORT_FIELDS[query.sort],
    order: query.order,
    limit: query.limit,
    page: query.page,
  });
  return { items: await viewsOf(ctx, organizationId, page.items), next: page.next, count: page.count };
}

/** The member `userId`, if the caller may see them; 404 when not a member. */
export async function getMember(ctx: IdentityContext, callerId: string, organizationId: string, userId: string): Promise<MemberView> {
  const { membership: caller } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canViewMember(caller, callerId === userId)) throw httpError.forbidden('You may not see the members of this organization');
  return memberView(ctx, organizationId, userId);
}

async function memberView(ctx: IdentityContext, organizationId: string, userId: string): Promise<MemberView> {
  const membership = await ctx.models.Membership.findOne({ organizationId, userId }).lean();
  const [view] = membership ? await viewsOf(ctx, organizationId, [membership]) : [];
  if (!view) throw httpError.notFound('Member');
  return view;
}

async function requireAdmin(ctx: IdentityContext, callerId: string, organizationId: string): Promise<void> {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canAdministrate(membership)) throw httpError.forbidden('Only organization admins can manage members');
}

/** Admins change roles; null makes a guest. The last admin cannot be demoted (409). */
export async function updateMemberRole(ctx: IdentityContext, callerId: string, organizationId: string, userId: string, role: Role | null): Promise<MemberView> {
  await requireAdmin(ctx, callerId, organizationId);
  const target = await ctx.models.Membership.findOne({ organizationId, userId }).lean();
  if (!target) throw httpError.notFound('Member');
  const change = () => changingMembers(ctx, organizationId, [userId], () => ctx.models.Membership.updateOne({ organizationId, userId }, { $set: { role } }));
  if (target.role === 'admin' && role !== 'admin') {
    await withAdminLock(ctx, organizationId, async () => {
      await ensureAnotherAdmin(ctx, organizationId, userId);
      await change();
    });
  } else {
    await change();
  }
  return memberView(ctx, organizationId, userId);
}

/**
 * Removes the membership, its team memberships, and (through the event) the member's grants
 * in content. Not a member: nothing to do. The last admin cannot leave (409).
 */
export async function removeMember(ctx: IdentityContext, callerId: string, organizationId: string, userId: string): Promise<void> {
  const { membership: caller } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canRemoveMember(caller, callerId === userId)) throw httpError.forbidden('Only organization admins can remove members');
  // Announced even when there is nothing left to remove: a retry after a half-done removal
  // still clears what other services cached.
  const removed = await changingMembers(ctx, organizationId, [userId], async () => {
    const target = await ctx.models.Membership.findOne({ organizationId, userId }).lean();
    if (!target) return false;
    const remove = () => ctx.models.Membership.deleteOne({ organizationId, userId });
    if (target.role === 'admin') {
      await withAdminLock(ctx, organizationId, async () => {
        await ensureAnotherAdmin(ctx, organizationId, userId);
        await remove();
      });
    } else {
      await remove();
    }
    await ctx.models.TeamMembership.deleteMany({ organizationId, userId });
    return true;
  });
  if (!removed) return;
  await ctx.events?.publish(EVENTS.memberRemoved, { organizationId, userId }, { organizationId });
}

async function ensureAnotherAdmin(ctx: IdentityContext, organizationId: string, userId: string): Promise<void> {
  const others = await ctx.models.Membership.countDocuments({ organizationId, role: 'admin', disabled: false, userId: { $ne: userId } });
  if (others === 0) throw httpError.conflict('The organization must keep at least one admin');
}

/**
 * Serializes changes that could remove an organization's last admin: without multi-document
 * transactions two admins demoting each other at once would otherwise both succeed.
 */
function withAdminLock<T>(ctx: IdentityContext, organizationId: string, action: () => Promise<T>): Promise<T> {
  return withRedisLock(ctx.redis, `identity:admin-lock:${organizationId}`, action, {
    ttlMs: 10_000,
    waitMs: 5_000,
    onBusy: () => httpError.conflict('The organization is being changed, try again'),
    logger: ctx.logger,
  });
}

/** Admins mark a member as signing in through SSO. */
export async function makeSsoMember(ctx: IdentityContext, callerId: string, organizationId: string, userId: string): Promise<MemberView> {
  await requireAdmin(ctx, callerId, organizationId);
  const updated = await ctx.models.Membership.updateOne({ organizationId, userId }, { $set: { sso: true } });
  if (updated.matchedCount === 0) throw httpError.notFound('Member');
  return memberView(ctx, organizationId, userId);
}

/**
 * Records the caller's activity and returns visitor claims: a short-lived signed token that
 * tells our published sites who this member is (organization, role, teams).
 */
export async function ping(ctx: IdentityContext, callerId: string, organizationId: string): Promise<{ serviceVisitorClaims: string }> {
  await getVisibleOrganization(ctx, callerId, organizationId);
  const membership = await ctx.models.Membership.findOneAndUpdate(
    { organizationId, userId: callerId },
    { $set: { lastSeenAt: new Date() } },
    { returnDocument: 'after' },
  ).lean();
  if (!membership) throw httpError.notFound('Organization');
  const teams = await ctx.models.TeamMembership.find({ organizationId, userId: callerId }, { teamId: 1 }).lean();
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: ctx.config.PUBLIC_BASE_URL,
    sub: callerId,
    organization: organizationId,
    role: membership.role,
    teams: teams.map((t) => t.teamId),
    iat: now,
    exp: now + 3600,
  };
  return { serviceVisitorClaims: signJwt(claims, createHmac('sha256', ctx.config.INTERNAL_HMAC_SECRET).update('visitor-claims').digest()) };
}

function signJwt(claims: object, key: Buffer): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
}

/** Fills the search copies of memberships written before they existed, a batch at a time. */
export async function backfillMemberSearchFields(ctx: IdentityContext): Promise<void> {
  for (;;) {
    const batch = await ctx.models.Membership.find({ email: { $exists: false } }, { userId: 1 })
      .limit(500)
      .lean();
    if (batch.length === 0) return;
    const users = new Map((await ctx.models.User.find({ _id: { $in: batch.map((m) => m.userId) } }).lean()).map((u) => [u._id, u]));
    let progressed = false;
    for (const membership of batch) {
      const user = users.get(membership.userId);
      const fields = user ? memberSearchFields(user) : { email: '', displayName: '', sortName: '' };
      await ctx.models.Membership.updateOne({ _id: membership._id, email: { $exists: false } }, { $set: fields });
      progressed = true;
    }
    if (!progressed) return;
  }
}
