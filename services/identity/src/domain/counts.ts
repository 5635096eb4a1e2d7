import { clientsOf } from '@quire/http';
import type { Role } from '@quire/runtime';
import type { MembershipDoc } from '../db/models';
import type { IdentityContext } from './context';

/** The team ids of each of these users in the organization, in one query. */
export async function teamIdsOfUsers(ctx: IdentityContext, organizationId: string, userIds: string[]): Promise<Map<string, string[]>> {
  const byUser = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await ctx.models.TeamMembership.find({ organizationId, userId: { $in: [...new Set(userIds)] } }, { userId: 1, teamId: 1 }).lean();
  for (const row of rows) byUser.get(row.userId)?.push(row.teamId);
  return byUser;
}

export interface MemberCounts {
  spaces: number;
  teams: number;
  sites: number;
}

/**
 * Whether publishing shows the organization's sites to this member: every active member
 * with a role sees every site; guests (role null) and disabled members see none.
 */
export function seesSites(membership: Pick<MembershipDoc, 'role' | 'disabled'>): boolean {
  return membership.role !== null && !membership.disabled;
}

/**
 * Spaces, teams and sites of each member of a page: one team-membership query, one batched
 * content call and one publishing call for the whole page (never one call per member).
 */
export async function memberCounts(
  ctx: IdentityContext,
  organizationId: string,
  memberships: Array<Pick<MembershipDoc, 'userId' | 'role' | 'disabled'>>,
): Promise<Map<string, MemberCounts>> {
  const counts = new Map<string, MemberCounts>();
  if (memberships.length === 0) return counts;
  const teamsAndSpaces = async () => {
    const teams = await teamIdsOfUsers(
      ctx,
      organizationId,
      memberships.map((m) => m.userId),
    );
    const subjects = memberships.map((m) => memberSubject(organizationId, m.userId, m.role, teams.get(m.userId) ?? []));
    const { counts: spaces } = await clientsOf(ctx).content.batchCountSpaces({ subjects });
    return { teams, spaces };
  };
  const [{ teams, spaces }, sites] = await Promise.all([
    teamsAndSpaces(),
    // A page of guests sees no site: publishing is not asked.
    memberships.some(seesSites) ? organizationSiteCount(ctx, organizationId) : 0,
  ]);
  memberships.forEach((m, i) => counts.set(m.userId, { spaces: spaces[i] ?? 0, teams: teams.get(m.userId)?.length ?? 0, sites: seesSites(m) ? sites : 0 }));
  return counts;
}

/** The number of sites of the organization, in one publishing call. */
async function organizationSiteCount(ctx: IdentityContext, organizationId: string): Promise<number> {
  const { counts } = await clientsOf(ctx).publishing.batchCountSites({ organizationIds: [organizationId] });
  return counts[0] ?? 0;
}

/** What content needs to resolve a member's access: their org role and teams. */
export function memberSubject(organizationId: string, userId: string, role: Role | null, teamIds: string[]) {
  return { organizationId, userId, orgRole: role ?? '', teamIds };
}

/** Members of each team (teams without members absent), in one aggregation. */
export async function teamMemberCounts(ctx: IdentityContext, teamIds: string[]): Promise<Map<string, number>> {
  if (teamIds.length === 0) return new Map();
  const grouped = await ctx.models.TeamMembership.aggregate<{ _id: string; n: number }>([
    { $match: { teamId: { $in: teamIds } } },
    { $group: { _id: '$teamId', n: { $sum: 1 } } },
  ]);
  return new Map(grouped.map((g) => [g._id, g.n]));
}

/** Members and spaces of each team, in one aggregation and one batched content call. */
export async function teamCounts(ctx: IdentityContext, organizationId: string, teamIds: string[]): Promise<Map<string, { members: number; spaces: number }>> {
  const result = new Map<string, { members: number; spaces: number }>();
  if (teamIds.length === 0) return result;
  const [members, spaces] = await Promise.all([
    teamMemberCounts(ctx, teamIds),
    clientsOf(ctx).content.batchCountSpaces({ subjects: teamIds.map((teamId) => ({ organizationId, teamId })) }),
  ]);
  teamIds.forEach((id, i) => result.set(id, { members: members.get(id) ?? 0, spaces: spaces.counts[i] ?? 0 }));
  return result;
}
