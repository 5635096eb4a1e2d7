import { fromService, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, retryOnDuplicateKey, type Role } from '@quire/runtime';
import type { GrantDoc } from '../db/structure';
import type { ContentContext } from './context';
import { requireOrganizationMembers, requireOrganizationTeams } from './organization-subjects';
import { countSpaces } from './space-counts';

/** The space or collection whose permissions are managed (already access-checked as admin). */
export interface GrantResource {
  type: 'space' | 'collection';
  id: string;
  organizationId: string;
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
    fromService('Identity', ctx.clients.identity.batchGetTeams({ organizationId, ids })),
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
