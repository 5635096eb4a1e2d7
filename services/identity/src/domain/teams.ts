import { EVENTS } from '@quire/async';
import { containsText, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, retryOnDuplicateKey, findByIds } from '@quire/runtime';
import type { MembershipDoc } from '../db/models';
import type { TeamDoc, TeamMembershipDoc, TeamRole } from '../db/directory';
import type { IdentityContext } from './context';
import { teamCounts, teamMemberCounts } from './counts';
import { changingMembers } from './invalidations';
import { viewsOf, type MemberView } from './members';
import { getVisibleOrganization } from './organizations';
import { canAdministrate, canViewMember, organizationPermissions, teamPermissions, type TeamPermissions } from './permissions';

export interface TeamView {
  team: TeamDoc;
  members: number;
  spaces: number;
  permissions: TeamPermissions;
}

/** Counts and the caller's permissions for a page of teams, batched. */
export async function teamViews(ctx: IdentityContext, caller: MembershipDoc, organizationId: string, teams: TeamDoc[]): Promise<TeamView[]> {
  const ids = teams.map((t) => t._id);
  const [counts, roles] = await Promise.all([
    teamCounts(ctx, organizationId, ids),
    ids.length ? ctx.models.TeamMembership.find({ teamId: { $in: ids }, userId: caller.userId }, { teamId: 1, role: 1 }).lean() : [],
  ]);
  const roleOf = new Map(roles.map((r) => [r.teamId, r.role]));
  return teams.map((team) => ({
    team,
    members: counts.get(team._id)?.members ?? 0,
    spaces: counts.get(team._id)?.spaces ?? 0,
    permissions: teamPermissions(caller, roleOf.get(team._id) ?? null),
  }));
}

/**
 * Teams of one organization by id with their member counts, for other services (no caller:
 * they have checked access themselves). One query for the teams, one aggregation for the
 * members; in the order asked, without unknown ids or teams of other organizations.
 */
export async function getTeamsWithMemberCounts(
  ctx: IdentityContext,
  organizationId: string,
  ids: string[],
): Promise<Array<{ team: TeamDoc; members: number }>> {
  const unique = [...new Set(ids)];
  if (!organizationId || unique.length === 0) return [];
  const [teams, members] = await Promise.all([ctx.models.Team.find({ _id: { $in: unique }, organizationId }).lean(), teamMemberCounts(ctx, unique)]);
  const byId = new Map(teams.map((t) => [t._id, t]));
  return unique.flatMap((id) => {
    const team = byId.get(id);
    return team ? [{ team, members: members.get(id) ?? 0 }] : [];
  });
}

/** The team as the caller may see it: 404 when missing, of another organization or not visible. */
async function visibleTeam(ctx: IdentityContext, callerId: string, organizationId: string, teamId: string) {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  const [team, own] = await Promise.all([
    ctx.models.Team.findOne({ _id: teamId, organizationId }).lean(),
    ctx.models.TeamMembership.findOne({ teamId, userId: callerId }, { role: 1 }).lean(),
  ]);
  const permissions = teamPermissions(membership, own?.role ?? null);
  if (!team || !permissions.view) throw httpError.notFound('Team');
  return { membership, team, permissions };
}

async function managedTeam(ctx: IdentityContext, callerId: string, organizationId: string, teamId: string) {
  const visible = await visibleTeam(ctx, callerId, organizationId, teamId);
  if (!visible.permissions.admin) throw httpError.forbidden('Only organization admins and team owners can manage this team');
  return visible;
}

export async function getTeam(ctx: IdentityContext, callerId: string, organizationId: string, teamId: string): Promise<TeamView> {
  const { membership, team } = await visibleTeam(ctx, callerId, organizationId, teamId);
  return (await teamViews(ctx, membership, organizationId, [team]))[0];
}

/** Teams alphabetically; `owner` keeps the teams that member can manage, `title` filters by name. */
export async function listTeams(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  query: { limit: number; page?: string; owner?: string; title?: string },
): Promise<KeysetPage<TeamView>> {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!organizationPermissions(membership).listTeams) throw httpError.forbidden('You may not list the teams of this organization');
  const filter: Record<string, unknown> = { organizationId };
  if (query.owner) {
    const owner = await ctx.models.Membership.findOne({ organizationId, userId: query.owner }).lean();
    if (!owner) throw httpError.notFound('Member');
    if (!canAdministrate(owner)) {
      const owned = await ctx.models.TeamMembership.find({ organizationId, userId: query.owner, role: 'owner' }, { teamId: 1 }).lean();
      filter._id = { $in: owned.map((o) => o.teamId) };
    }
  }
  if (query.title) filter.title = containsText(query.title);
  const page = await keysetPage(ctx.models.Team, { filter, sortField: 'sortTitle', order: 'asc', limit: query.limit, page: query.page });
  return { items: await teamViews(ctx, membership, organizationId, page.items), next: page.next, count: page.count };
}

/** Admins create teams, with initial members who must all belong to the organization. */
export async function createTeam(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  input: { title: string; members?: string[] },
): Promise<TeamView> {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canAdministrate(membership)) throw httpError.forbidden('Only organization admins can create teams');
  const userIds = [...new Set((await resolveMembers(ctx, organizationId, input.members ?? [], 'members')).values())];
  const now = new Date();
  const team = (
    await ctx.models.Team.create({ _id: newId(), organizationId, title: input.title, sortTitle: input.title.toLowerCase(), createdAt: now })
  ).toObject();
  if (userIds.length) {
    await changingMembers(ctx, organizationId, userIds, () =>
      ctx.models.TeamMembership.insertMany(
        userIds.map((userId) => ({ _id: newId(), organizationId, teamId: team._id, userId, role: 'member', createdAt: now })),
      ),
    );
  }
  return (await teamViews(ctx, membership, organizationId, [team]))[0];
}

export async function renameTeam(ctx: IdentityContext, callerId: string, organizationId: string, teamId: string, title: string): Promise<TeamView> {
  const { membership } = await managedTeam(ctx, callerId, organizationId, teamId);
  const team = await ctx.models.Team.findOneAndUpdate(
    { _id: teamId, organizationId },
    { $set: { title, sortTitle: title.toLowerCase() } },
    { returnDocument: 'after' },
  ).lean();
  if (!team) throw httpError.notFound('Team');
  return (await teamViews(ctx, membership, organizationId, [team]))[0];
}

/** Admins delete teams; a missing team is already deleted. Content drops the team's grants on the event. */
export async function deleteTeam(ctx: IdentityContext, callerId: string, organizationId: string, teamId: string): Promise<void> {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canAdministrate(membership)) throw httpError.forbidden('Only organization admins can delete teams');
  // Its members' team lists change: every member's standing is announced (deleting a team is rare).
  const deleted = await changingMembers(ctx, organizationId, 'all', async () => {
    const { deletedCount } = await ctx.models.Team.deleteOne({ _id: teamId, organizationId });
    if (deletedCount > 0) await ctx.models.TeamMembership.deleteMany({ teamId });
    return deletedCount > 0;
  });
  if (!deleted) return;
  await ctx.models.SamlProvider.updateMany({ organizationId, defaultTeamId: teamId }, { $set: { defaultTeamId: null } });
  await ctx.events?.publish(EVENTS.teamDeleted, { organizationId, teamId }, { organizationId });
}

export interface TeamMemberView {
  member: MemberView;
  role: TeamRole;
  /** Whether the caller may view this team member: whoever may view the team. */
  view: boolean;
  /** Whether the caller may see the member's e-mail: only those who may list the organization's members, not guests in the team. */
  email: boolean;
}

export async function listTeamMembers(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  teamId: string,
  query: { limit: number; page?: string },
): Promise<KeysetPage<TeamMemberView>> {
  const { membership, permissions } = await visibleTeam(ctx, callerId, organizationId, teamId);
  const email = organizationPermissions(membership).listMembers;
  const page = await keysetPage(ctx.models.TeamMembership, { filter: { teamId }, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
  const memberships = await ctx.models.Membership.find({ organizationId, userId: { $in: page.items.map((i) => i.userId) } }).lean();
  const views = new Map((await viewsOf(ctx, organizationId, memberships)).map((v) => [v.membership.userId, v]));
  const items = page.items
    .filter((i) => views.has(i.userId))
    .map((i) => ({ member: views.get(i.userId)!, role: i.role, view: permissions.view, email: email || i.userId === callerId }));
  return { items, next: page.next, count: page.count };
}

/**
 * Resolves user ids or e-mail addresses to ids of members of the organization. Anyone who is not
 * a member is a 400 naming them, before anything is written.
 */
async function resolveMembers(ctx: IdentityContext, organizationId: string, refs: string[], field: string): Promise<Map<string, string>> {
  const resolved = await resolveUsers(ctx, refs);
  const ids = [...new Set(resolved.values())];
  const members = new Set(
    ids.length ? (await ctx.models.Membership.find({ organizationId, userId: { $in: ids } }, { userId: 1 }).lean()).map((m) => m.userId) : [],
  );
  const strangers = refs.filter((ref) => !members.has(resolved.get(ref) ?? ''));
  if (strangers.length) throw httpError.badRequest(`Invalid body: ${field}: not members of the organization: ${strangers.slice(0, 10).join(', ')}`);
  return resolved;
}

/** Reference (user id or e-mail) → user id, for the references that name an existing user. */
async function resolveUsers(ctx: IdentityContext, refs: string[]): Promise<Map<string, string>> {
  const emails = refs.filter((r) => r.includes('@')).map((r) => r.trim().toLowerCase());
  const ids = refs.filter((r) => !r.includes('@'));
  const users = refs.length ? await ctx.models.User.find({ $or: [{ _id: { $in: ids } }, { email: { $in: emails } }] }, { _id: 1, email: 1 }).lean() : [];
  const byId = new Map(users.map((u) => [u._id, u._id]));
  const byEmail = new Map(users.map((u) => [u.email, u._id]));
  const map = new Map<string, string>();
  for (const ref of refs) {
    const id = ref.includes('@') ? byEmail.get(ref.trim().toLowerCase()) : byId.get(ref);
    if (id) map.set(ref, id);
  }
  return map;
}

/**
 * Adds, removes and sets roles of team members in one request. Everything is validated first
 * (nothing is half-applied); a user both added and removed is removed.
 */
export async function updateTeamMembers(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  teamId: string,
  input: { add?: string[]; remove?: string[]; memberships?: Record<string, { role: TeamRole }> },
): Promise<void> {
  await managedTeam(ctx, callerId, organizationId, teamId);
  const roleRefs = Object.keys(input.memberships ?? {});
  const [added, roled, removedMap] = await Promise.all([
    resolveMembers(ctx, organizationId, input.add ?? [], 'add'),
    resolveMembers(ctx, organizationId, roleRefs, 'memberships'),
    resolveUsers(ctx, input.remove ?? []),
  ]);
  const removed = new Set(removedMap.values());
  const now = new Date();
  const upserts = new Map<string, Partial<TeamMembershipDoc>>();
  for (const userId of added.values()) upserts.set(userId, {});
  for (const ref of roleRefs) upserts.set(roled.get(ref)!, { role: input.memberships![ref].role });
  const operations = [...upserts]
    .filter(([userId]) => !removed.has(userId))
    .map(([userId, set]) => ({
      updateOne: {
        filter: { teamId, userId },
        update: {
          ...(set.role ? { $set: { role: set.role } } : {}),
          $setOnInsert: { _id: newId(), organizationId, createdAt: now, ...(set.role ? {} : { role: 'member' as TeamRole }) },
        },
        upsert: true,
      },
    }));
  await changingMembers(ctx, organizationId, [...removed, ...upserts.keys()], async () => {
    if (removed.size) await ctx.models.TeamMembership.deleteMany({ teamId, userId: { $in: [...removed] } });
    // Upserts: repeating them after a concurrent identical request inserted a row first is harmless.
    if (operations.length) await retryOnDuplicateKey(() => ctx.models.TeamMembership.bulkWrite(operations, { ordered: false }));
  });
}

/** Adds the member to the team or changes their role there; only members of the organization join (400). */
export async function setTeamMemberRole(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  teamId: string,
  userId: string,
  role: TeamRole,
): Promise<void> {
  await managedTeam(ctx, callerId, organizationId, teamId);
  if (!(await ctx.models.Membership.exists({ organizationId, userId }))) {
    if (!(await ctx.models.User.exists({ _id: userId }))) throw httpError.notFound('User');
    throw httpError.badRequest(`Invalid params: userId: not a member of the organization: ${userId}`);
  }
  await changingMembers(ctx, organizationId, [userId], () =>
    retryOnDuplicateKey(() =>
      ctx.models.TeamMembership.updateOne(
        { teamId, userId },
        { $set: { role }, $setOnInsert: { _id: newId(), organizationId, createdAt: new Date() } },
        { upsert: true },
      ),
    ),
  );
}

/** Team managers remove anyone; members may leave on their own. Not a member: nothing to do. */
export async function removeTeamMember(ctx: IdentityContext, callerId: string, organizationId: string, teamId: string, userId: string): Promise<void> {
  const { permissions } = await visibleTeam(ctx, callerId, organizationId, teamId);
  if (!permissions.admin && userId !== callerId) throw httpError.forbidden('Only organization admins and team owners can manage this team');
  await changingMembers(ctx, organizationId, [userId], () => ctx.models.TeamMembership.deleteOne({ teamId, userId }));
}

/** The teams of a member, with their role in each; `title` filters by team name. */
export async function listMemberTeams(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  userId: string,
  query: { limit: number; page?: string; title?: string },
): Promise<KeysetPage<{ team: TeamView; role: TeamRole }>> {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  const self = callerId === userId;
  if (!canViewMember(membership, self) || !(self || organizationPermissions(membership).listTeams)) {
    throw httpError.forbidden('You may not list the teams of this organization');
  }
  if (!(await ctx.models.Membership.exists({ organizationId, userId }))) throw httpError.notFound('Member');
  const filter: Record<string, unknown> = { organizationId, userId };
  if (query.title) {
    const matching = await ctx.models.Team.find({ organizationId, title: containsText(query.title) }, { _id: 1 }).lean();
    filter.teamId = { $in: matching.map((t) => t._id) };
  }
  const page = await keysetPage(ctx.models.TeamMembership, { filter, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
  const teams = await findByIds(
    ctx.models.Team,
    page.items.map((i) => i.teamId),
  );
  const views = new Map((await teamViews(ctx, membership, organizationId, teams)).map((v) => [v.team._id, v]));
  const items = page.items.filter((i) => views.has(i.teamId)).map((i) => ({ team: views.get(i.teamId)!, role: i.role }));
  return { items, next: page.next, count: page.count };
}
