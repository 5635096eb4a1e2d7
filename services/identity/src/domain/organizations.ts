import { httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, type Role } from '@quire/runtime';
import type { MembershipDoc, OrganizationDoc, UserDoc } from '../db/models';
import type { IdentityContext } from './context';

export interface OrganizationInput {
  title: string;
  emailDomains?: string[];
  type?: OrganizationDoc['type'];
  useCase?: string;
  communityType?: string;
}

export type OrganizationPatch = Partial<
  Pick<OrganizationDoc, 'title' | 'emailDomains' | 'hostname' | 'defaultRole' | 'defaultContent' | 'logo' | 'sso' | 'ai' | 'inviteLinks' | 'mergeRules'>
>;

/** Creates an organization whose first member, its admin, is the creator. */
export async function createOrganization(ctx: IdentityContext, creatorId: string, input: OrganizationInput) {
  const now = new Date();
  const organization = await ctx.models.Organization.create({
    _id: newId(),
    title: input.title,
    createdAt: now,
    emailDomains: input.emailDomains ?? [],
    type: input.type ?? 'business',
    useCase: input.useCase,
    communityType: input.communityType,
    createdBy: creatorId,
  });
  const membership = await addMembership(ctx, organization._id, creatorId, 'admin');
  return { organization: organization.toObject(), membership };
}

/** Makes the user a member with `role`, or sets the role of an existing member. */
export async function addMembership(ctx: IdentityContext, organizationId: string, userId: string, role: Role | null): Promise<MembershipDoc> {
  const user = await ctx.models.User.findById(userId).lean();
  const membership = await ctx.models.Membership.findOneAndUpdate(
    { organizationId, userId },
    {
      $set: { role, ...(user ? memberSearchFields(user) : {}) },
      $setOnInsert: { _id: newId(), joinedAt: new Date(), sso: false, disabled: false },
    },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  return membership!;
}

/** The copies of the user a membership keeps so the member list can search and sort. */
export function memberSearchFields(user: Pick<UserDoc, 'email' | 'displayName'>) {
  return { email: user.email, displayName: user.displayName, sortName: user.displayName.toLowerCase() };
}

export async function getMembership(ctx: IdentityContext, organizationId: string, userId: string): Promise<MembershipDoc | null> {
  return ctx.models.Membership.findOne({ organizationId, userId }).lean();
}

/**
 * The organization as `userId` may see it: 404 when it does not exist or when they are
 * not a member (other tenants never learn whether an id exists).
 */
export async function getVisibleOrganization(ctx: IdentityContext, userId: string, organizationId: string) {
  const [organization, membership] = await Promise.all([
    ctx.models.Organization.findById(organizationId).lean(),
    getMembership(ctx, organizationId, userId),
  ]);
  if (!organization || !membership || membership.disabled) throw httpError.notFound('Organization');
  return { organization, membership };
}

/** The caller's organizations, most recently joined first, one keyset page at a time. */
export async function listOrganizationsOfUser(
  ctx: IdentityContext,
  userId: string,
  page: { limit: number; page?: string },
): Promise<KeysetPage<{ organization: OrganizationDoc; membership: MembershipDoc }>> {
  const memberships = await keysetPage(ctx.models.Membership, {
    filter: { userId, disabled: false },
    sortField: 'joinedAt',
    order: 'desc',
    limit: page.limit,
    page: page.page,
  });
  const organizations = await ctx.models.Organization.find({ _id: { $in: memberships.items.map((m) => m.organizationId) } }).lean();
  const byId = new Map(organizations.map((o) => [o._id, o]));
  const items = memberships.items
    .filter((membership) => byId.has(membership.organizationId))
    .map((membership) => ({ organization: byId.get(membership.organizationId)!, membership }));
  return { items, next: memberships.next, count: memberships.count };
}

/** Admins only. A hostname already claimed by another organization is a 409. */
export async function updateOrganization(ctx: IdentityContext, userId: string, organizationId: string, patch: OrganizationPatch) {
  const { organization: current, membership } = await getVisibleOrganization(ctx, userId, organizationId);
  if (membership.role !== 'admin') throw httpError.forbidden('Only organization admins can update the organization');
  const newHostname = patch.hostname !== undefined && patch.hostname !== current.hostname ? patch.hostname : undefined;
  if (newHostname) await claimHostname(ctx, organizationId, newHostname);
  const organization = await ctx.models.Organization.findByIdAndUpdate(organizationId, { $set: patch }, { returnDocument: 'after' }).lean();
  if (!organization) throw httpError.notFound('Organization');
  if (newHostname && current.hostname) await ctx.models.HostnameClaim.deleteOne({ _id: current.hostname, organizationId });
  return { organization, membership };
}

async function claimHostname(ctx: IdentityContext, organizationId: string, hostname: string): Promise<void> {
  try {
    await ctx.models.HostnameClaim.create({ _id: hostname, organizationId });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    const claim = await ctx.models.HostnameClaim.findById(hostname).lean();
    if (claim?.organizationId !== organizationId) throw httpError.conflict('hostname: already used by another organization');
  }
}

/** Which of these organizations the user owns a team in (Organization.permissions.ownTeam). */
export async function organizationsWithOwnedTeam(ctx: IdentityContext, userId: string, organizationIds: string[]): Promise<Set<string>> {
  if (organizationIds.length === 0) return new Set();
  const owned = await ctx.models.TeamMembership.find({ userId, organizationId: { $in: organizationIds }, role: 'owner' }, { organizationId: 1 }).lean();
  return new Set(owned.map((o) => o.organizationId));
}
