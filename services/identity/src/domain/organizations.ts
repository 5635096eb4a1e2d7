import { clientsOf, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { isDuplicateKeyError, newId, outsideTokenScope, retryOnDuplicateKey, tokenScope, type Role, findByIds } from '@quire/runtime';
import { DEFAULT_ORGANIZATION_ROLE, type MembershipDoc, type OrganizationDoc, type UserDoc } from '../db/models';
import type { IdentityContext } from './context';
import { changingMembers } from './invalidations';

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

/**
 * Creates an organization whose first member, its admin, is the creator. A token scoped to one
 * organization may not: it would own an organization outside its scope.
 */
export async function createOrganization(ctx: IdentityContext, creatorId: string, input: OrganizationInput) {
  if (tokenScope()) throw httpError.forbidden('This token is limited to one organization and cannot create organizations');
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

/** Makes the user a member with `role`, or sets the role of an existing member (idempotent under concurrency). */
export async function addMembership(ctx: IdentityContext, organizationId: string, userId: string, role: Role | null): Promise<MembershipDoc> {
  const user = await ctx.models.User.findById(userId).lean();
  const membership = await changingMembers(ctx, organizationId, [userId], () =>
    retryOnDuplicateKey(() =>
      ctx.models.Membership.findOneAndUpdate(
        { organizationId, userId },
        {
          $set: { role, ...(user ? memberSearchFields(user) : {}) },
          $setOnInsert: { _id: newId(), joinedAt: new Date(), sso: false, disabled: false },
        },
        { upsert: true, returnDocument: 'after' },
      ).lean(),
    ),
  );
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
 * not a member (other tenants never learn whether an id exists). A caller whose token is
 * scoped to another organization is not a member here, whatever their memberships.
 */
export async function getVisibleOrganization(ctx: IdentityContext, userId: string, organizationId: string) {
  if (outsideTokenScope(organizationId, userId)) throw httpError.notFound('Organization');
  const [organization, membership] = await Promise.all([ctx.models.Organization.findById(organizationId).lean(), getMembership(ctx, organizationId, userId)]);
  if (!organization || !membership || membership.disabled) throw httpError.notFound('Organization');
  return { organization, membership };
}

/**
 * The caller's organizations, most recently joined first, one keyset page at a time; only the
 * token's organization when the token is scoped to one.
 */
export async function listOrganizationsOfUser(
  ctx: IdentityContext,
  userId: string,
  page: { limit: number; page?: string },
): Promise<KeysetPage<{ organization: OrganizationDoc; membership: MembershipDoc }>> {
  const scope = tokenScope();
  const memberships = await keysetPage(ctx.models.Membership, {
    filter: { userId, disabled: false, ...(scope ? { organizationId: scope } : {}) },
    sortField: 'joinedAt',
    order: 'desc',
    limit: page.limit,
    page: page.page,
  });
  const organizations = await findByIds(
    ctx.models.Organization,
    memberships.items.map((m) => m.organizationId),
  );
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
  if (patch.defaultContent) await checkOwnSite(ctx, organizationId, patch.defaultContent.site);
  const newHostname = patch.hostname !== undefined && patch.hostname !== current.hostname ? patch.hostname : undefined;
  if (newHostname) await claimHostname(ctx, organizationId, newHostname);
  // null (GitBook's "guests") puts back the default role: an organization's is always a role.
  const fields = patch.defaultRole === null ? { ...patch, defaultRole: DEFAULT_ORGANIZATION_ROLE } : patch;
  const organization = await ctx.models.Organization.findByIdAndUpdate(organizationId, { $set: fields }, { returnDocument: 'after' }).lean();
  if (!organization) throw httpError.notFound('Organization');
  if (newHostname && current.hostname) await ctx.models.HostnameClaim.deleteOne({ _id: current.hostname, organizationId });
  return { organization, membership };
}

/**
 * 400 unless the site is one of the organization's own (publishing owns sites): an unknown site
 * and another organization's get the same answer, so the check tells nothing about other tenants.
 */
async function checkOwnSite(ctx: IdentityContext, organizationId: string, siteId: string): Promise<void> {
  const { sites } = await clientsOf(ctx).publishing.batchGetSites({ ids: [siteId] });
  if (!sites.some((site) => site.id === siteId && site.organizationId === organizationId)) {
    throw httpError.badRequest('Invalid body: defaultContent.site: not a site of this organization');
  }
}

async function claimHostname(ctx: IdentityContext, organizationId: string, hostname: string): Promise<void> {
  try {
    await ctx.models.HostnameClaim.create({ _id: hostname, organizationId });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
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
