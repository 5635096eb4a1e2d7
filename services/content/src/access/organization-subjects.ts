import { clientsOf, httpError, type MemberObject } from '@quire/http';
import type { ContentContext, UserViewer } from '../kernel';

/*
 * The users and teams a space, a collection or a change request may name: those of its
 * own organization. Granting another tenant's user would show their e-mail in the
 * permission list (and requesting their review would in the answer); and an unknown id
 * and another organization's user get the same 400, so the check is no oracle for who
 * exists elsewhere. One batched identity call per check; identity down is a 503.
 */

/**
 * The Member objects (as identity's REST API presents them) of those of `userIds` who are
 * members of the organization, as `viewer` may see them (a guest sees no e-mail): one
 * identity.BatchGetMembers call (one per 1,000 users).
 */
export async function loadMembers(
  ctx: ContentContext,
  organizationId: string,
  userIds: readonly string[],
  viewer: UserViewer,
): Promise<Map<string, MemberObject>> {
  const { members } = await clientsOf(ctx).identity.batchGetMembers({ organizationId, userIds });
  const shown = (member: MemberObject): MemberObject => {
    if (viewer.emails) return member;
    const { email: _hidden, ...user } = member.user;
    return { ...member, user };
  };
  return new Map(members.map((member) => [member.userId, shown(member.rest)]));
}

const named = (ids: string[]) => ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length} in all)` : '');

/** 400 (`Invalid body: <field>: <id> is not a member of this organization`) unless every user is one of its members. */
export async function requireOrganizationMembers(ctx: ContentContext, organizationId: string, userIds: readonly string[], field: string): Promise<void> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return;
  // Users only (not Member views with their counts): identity leaves out non-members and unknown ids alike.
  const { users } = await clientsOf(ctx).identity.batchGetUsers({ ids: wanted, organizationId });
  const members = new Set(users.map((user) => user.id));
  const missing = wanted.filter((id) => !members.has(id));
  if (missing.length === 0) return;
  throw httpError.badRequest(`Invalid body: ${field}: ${named(missing)} ${missing.length === 1 ? 'is not a member' : 'are not members'} of this organization`);
}

/** 400 (`Invalid body: <field>: <id> is not a team of this organization`) unless every team is one of its teams. */
export async function requireOrganizationTeams(ctx: ContentContext, organizationId: string, teamIds: readonly string[], field: string): Promise<void> {
  const wanted = [...new Set(teamIds)];
  if (wanted.length === 0) return;
  // identity leaves out unknown ids and other organizations' teams alike.
  const { teams } = await clientsOf(ctx).identity.batchGetTeams({ organizationId, ids: wanted });
  const found = new Set(teams.map((team) => team.id));
  const missing = wanted.filter((id) => !found.has(id));
  if (missing.length === 0) return;
  throw httpError.badRequest(`Invalid body: ${field}: ${named(missing)} ${missing.length === 1 ? 'is not a team' : 'are not teams'} of this organization`);
}
