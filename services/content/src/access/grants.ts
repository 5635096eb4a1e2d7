import { clientsOf, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, retryOnDuplicateKey, type Role } from '@quire/runtime';
import type { ContentContext } from '../kernel';
import { loadCollectionAccess, loadSpaceAccess, requireCollectionRole, requireSpaceRole } from './access';
import type { GrantDoc } from './grant-store';
import type { MemberStanding } from './membership';
import { requireOrganizationMembers, requireOrganizationTeams } from './organization-subjects';
import { COLLECTION_ACTION_ROLES, SPACE_ACTION_ROLES } from './roles';
import { countSpaces } from './space-counts';

/** The space or collection whose permissions are managed (already access-checked as admin). */
export interface GrantResource {
  type: 'space' | 'collection';
  id: string;
  organizationId: string;
}

/** The space or collection whose permissions the caller manages: 404 when invisible to them, 403 unless they administer it. */
export async function loadAdministeredResource(ctx: ContentContext, userId: string, type: GrantResource['type'], id: string): Promise<GrantResource> {
  if (type === 'space') {
    const access = await loadSpaceAccess(ctx, userId, id);
    requireSpaceRole(access, SPACE_ACTION_ROLES.admin, 'manage its permissions');
    return { type: 'space', id: access.space._id, organizationId: access.space.organizationId };
  }
  const access = await loadCollectionAccess(ctx, userId, id);
  requireCollectionRole(access, COLLECTION_ACTION_ROLES.admin, 'manage its permissions');
  return { type: 'collection', id: access.collection._id, organizationId: access.collection.organizationId };
}

/**
 * Invites users and/or teams with a role (OpenAPI InviteUsersAndTeams); role null removes
 * their explicit access. Every user granted must be a member and every team a team of
 * the resource's organization (checked before anything is written: all or nothing).
 */
export async function inviteToResource(
  ctx: ContentContext,
  resource: GrantResource,
  input: { role: Role | null; users?: string[]; teams?: string[] },
): Promise<void> {
  const users = [...new Set(input.users ?? [])];
  const teams = [...new Set(input.teams ?? [])];
  // Removing access names nobody new: a grant left by someone who has since gone can still be dropped.
  if (input.role !== null) {
    const checks = await Promise.allSettled([
      requireOrganizationMembers(ctx, resource.organizationId, users, 'users'),
      requireOrganizationTeams(ctx, resource.organizationId, teams, 'teams'),
    ]);
    for (const check of checks) if (check.status === 'rejected') throw check.reason;
  }
  const subjects = [
    ...users.map((id) => ({ subjectType: 'user' as const, subjectId: id })),
    ...teams.map((id) => ({ subjectType: 'team' as const, subjectId: id })),
  ];
  for (const subject of subjects) await setGrant(ctx, resource, subject.subjectType, subject.subjectId, input.role);
}

/** Sets (or with null removes) one subject's explicit role on a resource. Returns false when there was nothing to remove. */
export async function setGrant(
  ctx: ContentContext,
  resource: GrantResource,
  subjectType: 'user' | 'team',
  subjectId: string,
  role: Role | null,
): Promise<boolean> {
  const key = { resourceId: resource.id, subjectType, subjectId };
  if (role === null) {
    const removed = await ctx.models.Grant.deleteOne(key);
    return removed.deletedCount > 0;
  }
  // The same grant sent twice at once: the second upsert loses the race on the unique key,
  // and its retry finds the first one's row and sets the same role (idempotent, no 500).
  await retryOnDuplicateKey(() =>
    ctx.models.Grant.updateOne(
      key,
      {
        $set: { role, organizationId: resource.organizationId, resourceType: resource.type },
        $setOnInsert: { _id: newId(), createdAt: new Date() },
      },
      { upsert: true },
    ),
  );
  return true;
}

/** PATCH of one subject's role: 404 when the subject holds no explicit role there. */
export async function updateGrant(
  ctx: ContentContext,
  resource: GrantResource,
  subjectType: 'user' | 'team',
  subjectId: string,
  role: Role | null,
): Promise<void> {
  const existing = await ctx.models.Grant.exists({ resourceId: resource.id, subjectType, subjectId });
  if (!existing) throw httpError.notFound(subjectType === 'user' ? 'User permission' : 'Team permission');
  await setGrant(ctx, resource, subjectType, subjectId, role);
}

export async function removeGrant(ctx: ContentContext, resource: GrantResource, subjectType: 'user' | 'team', subjectId: string): Promise<void> {
  await ctx.models.Grant.deleteOne({ resourceId: resource.id, subjectType, subjectId });
}

/** Explicit grants of one kind on a resource, oldest first (keyset on createdAt, _id). */
export function listGrants(
  ctx: ContentContext,
  resource: GrantResource,
  subjectType: 'user' | 'team',
  query: { page?: string; limit: number },
): Promise<KeysetPage<GrantDoc>> {
  return keysetPage(ctx.models.Grant, {
    filter: { resourceId: resource.id, subjectType },
    sortField: 'createdAt',
    order: 'asc',
    limit: query.limit,
    page: query.page,
  });
}

/** A user's grant with what identity knows of the user. */
export interface UserGrantView {
  grant: GrantDoc;
  user: { id: string; displayName: string; email: string; photoUrl: string };
}

/**
 * The users behind a page of user grants, with one identity.BatchGetUsers call. Only the
 * organization's members: a grant to anyone else (left from before grants were checked,
 * or a member who left) shows nothing of that user.
 */
export async function userGrantViews(ctx: ContentContext, organizationId: string, grants: GrantDoc[]): Promise<UserGrantView[]> {
  if (grants.length === 0) return [];
  const { users } = await clientsOf(ctx).identity.batchGetUsers({ ids: grants.map((g) => g.subjectId), organizationId });
  const byId = new Map(users.map((u) => [u.id, u]));
  return grants.flatMap((grant) => {
    const user = byId.get(grant.subjectId);
    return user ? [{ grant, user }] : [];
  });
}

/** A team's grant with what identity knows of the team and how many spaces it reaches. */
export interface TeamGrantView {
  grant: GrantDoc;
  team: { id: string; title: string; members: number; createdAt: Date };
  spaces: number;
}

/**
 * The teams behind a page of team grants: one identity.BatchGetTeams for the page (title,
 * members) and one count of each team's spaces from content's own grants. A team identity
 * no longer knows (deleted, its grants not yet dropped by the event) is left out, as
 * unknown users are in the user list.
 */
export async function teamGrantViews(ctx: ContentContext, organizationId: string, grants: GrantDoc[]): Promise<TeamGrantView[]> {
  if (grants.length === 0) return [];
  const ids = grants.map((g) => g.subjectId);
  const [{ teams }, spaces] = await Promise.all([
    clientsOf(ctx).identity.batchGetTeams({ organizationId, ids }),
    countSpaces(
      ctx,
      ids.map((teamId) => ({ organizationId, teamId })),
    ),
  ]);
  const byId = new Map(teams.map((t) => [t.id, t]));
  return grants.flatMap((grant, i) => {
    const team = byId.get(grant.subjectId);
    if (!team) return [];
    const createdAt = team.createTime ?? new Date(grant.createdAt);
    return [{ grant, team: { id: team.id, title: team.title, members: team.memberCount, createdAt }, spaces: spaces[i] ?? 0 }];
  });
}

/** identity told us a member left an organization: their grants there go. */
export async function removeMemberGrants(ctx: ContentContext, organizationId: string, userId: string): Promise<number> {
  const { deletedCount } = await ctx.models.Grant.deleteMany({ organizationId, subjectType: 'user', subjectId: userId });
  return deletedCount;
}

/** identity told us a team was deleted: its grants go. */
export async function removeTeamGrants(ctx: ContentContext, organizationId: string, teamId: string): Promise<number> {
  const { deletedCount } = await ctx.models.Grant.deleteMany({ organizationId, subjectType: 'team', subjectId: teamId });
  return deletedCount;
}

/**
 * The caller's permissions on a team (OpenAPI OrganizationTeam.permissions), by identity's
 * rule as far as content knows the caller: org admins manage every team; members with a
 * role, and the team's own members, see it. Identity also lets a team's owners manage it,
 * but content is not told team roles, so such an owner shows admin false here.
 */
export function teamPermissionsOf(caller: MemberStanding, teamId: string): { admin: boolean; view: boolean } {
  if (!caller.member) return { admin: false, view: false };
  return { admin: caller.orgRole === 'admin', view: caller.orgRole !== null || caller.teamIds.includes(teamId) };
}
