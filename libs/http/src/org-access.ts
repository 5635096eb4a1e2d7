import {
  membershipCacheOf,
  membershipFromProto,
  outsideTokenScope,
  roleAtLeast,
  type CachedMembership,
  type InstallationReach,
  type Logger,
  type RedisClient,
  type Role,
  type ServiceClients,
} from '@quire/runtime';
import { httpError } from './errors';
import { clientsOf } from './service-clients';

/** What the organization lookups need of a service's context. */
export interface OrgAccessDeps {
  redis: RedisClient;
  logger: Logger;
  clients: ServiceClients;
}

/** The caller's standing in an organization: only members holding a role act in it. */
export interface OrgAccess {
  organizationId: string;
  userId: string;
  role: Role;
  /** Set for an integration installation's user: the only spaces and sites it may act on (`reaches`). */
  installationReach?: InstallationReach;
}

/** The role of an active member; null for guests, disabled members and non-members. */
function activeRole(membership: CachedMembership): Role | null {
  return membership.member && !membership.disabled ? membership.role : null;
}

/**
 * The caller's role in the organization, or null when they are not an active member with a
 * role, or when their token is scoped to another organization (checked first, whatever the cache
 * holds). The membership comes from this process's cache, which identity's invalidations keep
 * current, else from identity.
 */
export async function findOrgAccess(deps: OrgAccessDeps, userId: string, organizationId: string): Promise<OrgAccess | null> {
  if (outsideTokenScope(organizationId, userId)) return null;
  const membership = await membershipCacheOf(deps.redis, deps.logger).get(organizationId, userId, async () =>
    membershipFromProto((await clientsOf(deps).identity.getMembership({ organizationId, userId })).membership),
  );
  const role = activeRole(membership);
  if (!role) return null;
  return membership.installationReach ? { organizationId, userId, role, installationReach: membership.installationReach } : { organizationId, userId, role };
}

/** {@link findOrgAccess}, or 404: outsiders never learn what an organization holds. */
export async function loadOrgAccess(deps: OrgAccessDeps, userId: string, organizationId: string): Promise<OrgAccess> {
  const access = await findOrgAccess(deps, userId, organizationId);
  if (!access) throw httpError.notFound('Organization');
  return access;
}

/**
 * The caller's roles in several organizations (those where they hold one), from the cache and
 * identity for the missing ones: what lists need for every row at once.
 */
export async function orgRolesOf(deps: OrgAccessDeps, userId: string, organizationIds: readonly string[]): Promise<Map<string, Role>> {
  const inScope = [...new Set(organizationIds)].filter((organizationId) => !outsideTokenScope(organizationId, userId));
  const memberships = await membershipCacheOf(deps.redis, deps.logger).getMany(userId, inScope, async (missing) => {
    const { memberships: found } = await clientsOf(deps).identity.batchGetMemberships({ userId, organizationIds: missing });
    return new Map<string, CachedMembership>(found.map((membership) => [membership.organizationId, membershipFromProto(membership)]));
  });
  const roles = new Map<string, Role>();
  for (const [organizationId, membership] of memberships) {
    const role = activeRole(membership);
    if (role) roles.set(organizationId, role);
  }
  return roles;
}

/** Whether the access is an organization admin's. */
export function isOrgAdmin(access: Pick<OrgAccess, 'role'> | null | undefined): boolean {
  return !!access && roleAtLeast(access.role, 'admin');
}

/** 403 unless the caller administers the organization. */
export function requireOrgAdmin(access: OrgAccess, action: string): void {
  if (!isOrgAdmin(access)) throw httpError.forbidden(`Only organization admins can ${action}`);
}
