/*
 * The directory reads other services make over gRPC (grpc/server.ts answers with them): users'
 * memberships and teams, organizations by id or hostname, pages of members. Batched, as the
 * callers ask; the server turns the documents into messages.
 */
import { keysetPage, type KeysetPage } from '@quire/http';
import { findByIds } from '@quire/runtime';
import type { MembershipDoc, OrganizationDoc } from '../db/models';
import type { IdentityContext } from './context';
import { teamIdsOfUsers } from './counts';
import { getMembership } from './organizations';

/** A membership with the ids of the member's teams in its organization. */
export interface MembershipWithTeams {
  membership: MembershipDoc;
  teamIds: string[];
}

/** Which of these users have a membership of the organization (a disabled one included). */
export async function usersWithMembership(ctx: IdentityContext, organizationId: string, userIds: string[]): Promise<Set<string>> {
  const memberships = await ctx.models.Membership.find({ organizationId, userId: { $in: userIds } }, { userId: 1 }).lean();
  return new Set(memberships.map((membership) => membership.userId));
}

/** The memberships of these users in the organization. */
export async function membershipsOfUsers(ctx: IdentityContext, organizationId: string, userIds: string[]): Promise<MembershipDoc[]> {
  return ctx.models.Membership.find({ organizationId, userId: { $in: userIds } }).lean();
}

/** The user's memberships among these organizations. */
export async function membershipsOfUser(ctx: IdentityContext, userId: string, organizationIds: string[]): Promise<MembershipDoc[]> {
  if (organizationIds.length === 0) return [];
  return ctx.models.Membership.find({ userId, organizationId: { $in: organizationIds } }).lean();
}

/** The user's membership of the organization (null if none) and their teams there. */
export async function membershipWithTeams(
  ctx: IdentityContext,
  organizationId: string,
  userId: string,
): Promise<{ membership: MembershipDoc | null; teamIds: string[] }> {
  const [membership, teams] = await Promise.all([getMembership(ctx, organizationId, userId), teamIdsOfUsers(ctx, organizationId, [userId])]);
  return { membership, teamIds: teams.get(userId) ?? [] };
}

/** The user's memberships among these organizations, each with their teams there. */
export async function membershipsOfUserWithTeams(ctx: IdentityContext, userId: string, organizationIds: string[]): Promise<MembershipWithTeams[]> {
  const [memberships, teams] = await Promise.all([
    membershipsOfUser(ctx, userId, organizationIds),
    ctx.models.TeamMembership.find({ userId, organizationId: { $in: organizationIds } }, { organizationId: 1, teamId: 1 }).lean(),
  ]);
  return memberships.map((membership) => ({
    membership,
    teamIds: teams.filter((team) => team.organizationId === membership.organizationId).map((team) => team.teamId),
  }));
}

/** A keyset page of the organization's memberships, latest joined first, each with the member's teams. */
export async function pageOfMemberships(
  ctx: IdentityContext,
  organizationId: string,
  query: { limit: number; page?: string },
): Promise<KeysetPage<MembershipWithTeams>> {
  const page = await keysetPage(ctx.models.Membership, {
    filter: { organizationId },
    sortField: 'joinedAt',
    order: 'desc',
    limit: query.limit,
    page: query.page,
  });
  const teams = await teamIdsOfUsers(
    ctx,
    organizationId,
    page.items.map((membership) => membership.userId),
  );
  return { ...page, items: page.items.map((membership) => ({ membership, teamIds: teams.get(membership.userId) ?? [] })) };
}

/**
 * The organizations with these ids, and those holding these hostnames (lower case): a hostname's
 * claim names its organization only while that organization still has the hostname.
 */
export async function organizationsByIdOrHostname(ctx: IdentityContext, ids: string[], hostnames: string[]): Promise<OrganizationDoc[]> {
  const claims = await findByIds(ctx.models.HostnameClaim, hostnames);
  const found = await findByIds(ctx.models.Organization, [...ids, ...claims.map((claim) => claim.organizationId)]);
  return found.filter((organization) => ids.includes(organization._id) || (organization.hostname !== undefined && hostnames.includes(organization.hostname)));
}
