import { identity } from '@quire/proto';
import { GrpcError, grpcStatus, roleToProto, checkBatch, requireCallingService, MAX_GRPC_BATCH } from '@quire/runtime';
import type { TeamDoc } from '../db/directory';
import { DEFAULT_ORGANIZATION_ROLE, type MembershipDoc, type OrganizationDoc, type UserDoc } from '../db/models';
import type { IdentityContext } from '../domain/context';
import {
  membershipsOfUser,
  membershipsOfUsers,
  membershipsOfUserWithTeams,
  membershipWithTeams,
  organizationsByIdOrHostname,
  pageOfMemberships,
  usersWithMembership,
} from '../domain/lookups';
import {
  installationStanding,
  issueInstallationToken,
  revokeInstallationTokens,
  updateInstallationAccess,
  type InstallationAccessInput,
  type InstallationMembership,
} from '../domain/installations';
import { organizationsWithOwnedTeam } from '../domain/organizations';
import { viewsOf } from '../domain/members';
import { getTeamsWithMemberCounts } from '../domain/teams';
import { getUsers } from '../domain/users';
import { resolveToken } from '../domain/tokens';
import { presentMember } from '../presenters/directory-presenter';
import { presentOrganization } from '../presenters/organization-presenter';

const toUser = (user: UserDoc): identity.User => ({
  id: user._id,
  displayName: user.displayName,
  // An installation's user has no e-mail (it stores a placeholder).
  email: user.kind === 'installation' ? '' : user.email,
  photoUrl: user.photoURL ?? '',
  createTime: user.createdAt,
});

const toOrganization = (organization: OrganizationDoc): identity.Organization => ({
  id: organization._id,
  title: organization.title,
  createTime: organization.createdAt,
  defaultRole: roleToProto(organization.defaultRole ?? DEFAULT_ORGANIZATION_ROLE),
  hostname: organization.hostname ?? '',
  mergeRulesType: organization.mergeRules?.type ?? 'none',
  mergeRules: organization.mergeRules?.type === 'rules' ? organization.mergeRules.rules.map((r) => ({ rule: r.rule, users: r.users })) : [],
  mergeRulesNoNewBrokenLinks: organization.mergeRules?.type === 'rules' && organization.mergeRules.requireNoNewBrokenLinks === true,
  restJson: '',
});

const toMembership = (membership: MembershipDoc, teamIds: string[]): identity.Membership => ({
  organizationId: membership.organizationId,
  userId: membership.userId,
  member: !membership.disabled,
  role: roleToProto(membership.role),
  teamIds,
  sso: membership.sso,
  disabled: membership.disabled,
  joinTime: membership.joinedAt,
  lastSeenTime: membership.lastSeenAt,
  installationReach: undefined,
});

/** What an installation's user stands for in its organization: a member without a membership row (installations.ts). */
const installationMembership = (userId: string, standing: InstallationMembership): identity.Membership => ({
  organizationId: standing.organizationId,
  userId,
  member: true,
  role: roleToProto(standing.role),
  teamIds: [],
  sso: false,
  disabled: false,
  joinTime: standing.since,
  lastSeenTime: undefined,
  installationReach: { ...standing.reach, spaceIds: [...standing.reach.spaceIds], siteIds: [...standing.reach.siteIds] },
});

/** Only the integrations service issues and revokes installation tokens (for its installations). */
const INSTALLATION_TOKEN_CALLERS = ['integrations'];

const toTeam = (team: TeamDoc, members: number): identity.Team => ({
  id: team._id,
  organizationId: team.organizationId,
  title: team.title,
  createTime: team.createdAt,
  memberCount: members,
});

/** IdentityService over gRPC: token resolution and batched lookups for other services (domain errors: their status, libs/runtime grpc.ts). */
export function identityGrpc(ctx: IdentityContext): identity.IdentityServiceImplementation {
  return {
    async resolveToken(request) {
      const resolved = await resolveToken(ctx, request.token);
      if (!resolved) throw new GrpcError(grpcStatus.NOT_FOUND, 'token not found or revoked');
      return {
        user: toUser(resolved.user),
        tokenId: resolved.tokenId,
        organizationId: resolved.organizationId ?? '',
        expireTime: resolved.expiresAt ?? undefined,
        installationId: resolved.installation?.id ?? '',
        installationScopes: resolved.installation?.scopes ?? [],
      };
    },

    async batchGetUsers(request) {
      let ids = checkBatch(request.ids);
      if (request.organizationId && ids.length > 0) {
        const memberIds = await usersWithMembership(ctx, request.organizationId, ids);
        ids = ids.filter((id) => memberIds.has(id));
      }
      const users = await getUsers(ctx, ids);
      return { users: users.map(toUser) };
    },

    async batchGetOrganizations(request) {
      const ids = checkBatch(request.ids);
      const hostnames = [...new Set(checkBatch(request.hostnames, 'hostnames').map((hostname) => hostname.toLowerCase()))];
      const organizations = await organizationsByIdOrHostname(ctx, ids, hostnames);
      const viewer = request.viewerUserId;
      if (!viewer) return { organizations: organizations.map(toOrganization) };
      // What the viewer sees: as identity's REST API presents each organization to them.
      const visible = organizations.filter((o) => !request.viewerTokenOrganizationId || request.viewerTokenOrganizationId === o._id).map((o) => o._id);
      const [memberships, owning] = await Promise.all([membershipsOfUser(ctx, viewer, visible), organizationsWithOwnedTeam(ctx, viewer, visible)]);
      const membershipOf = new Map(memberships.map((m) => [m.organizationId, m]));
      return {
        organizations: organizations.map((organization) => ({
          ...toOrganization(organization),
          restJson: JSON.stringify(
            presentOrganization(organization, {
              membership: membershipOf.get(organization._id) ?? null,
              baseUrl: ctx.config.PUBLIC_BASE_URL,
              ownsTeam: owning.has(organization._id),
            }),
          ),
        })),
      };
    },

    async getMembership(request) {
      // Side by side: for a non-member, whether an installation's user stands for one in its organization.
      const [{ membership, teamIds }, installation] = await Promise.all([
        membershipWithTeams(ctx, request.organizationId, request.userId),
        installationStanding(ctx, request.userId, [request.organizationId]),
      ]);
      if (membership) return { membership: toMembership(membership, teamIds) };
      return {
        membership: installation
          ? installationMembership(request.userId, installation)
          : { ...identity.Membership.fromPartial({}), organizationId: request.organizationId, userId: request.userId },
      };
    },

    async batchGetMemberships(request) {
      const organizationIds = checkBatch(request.organizationIds);
      const memberships = await membershipsOfUserWithTeams(ctx, request.userId, organizationIds);
      const answered = memberships.map(({ membership, teamIds }) => toMembership(membership, teamIds));
      const found = new Set(memberships.map(({ membership }) => membership.organizationId));
      const installation = await installationStanding(
        ctx,
        request.userId,
        organizationIds.filter((id) => !found.has(id)),
      );
      return { memberships: installation ? [...answered, installationMembership(request.userId, installation)] : answered };
    },

    async issueInstallationToken(request) {
      requireCallingService(...INSTALLATION_TOKEN_CALLERS);
      for (const field of ['installationId', 'organizationId', 'integrationName'] as const)
        if (!request[field]) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `${field} is required`);
      const issued = await issueInstallationToken(ctx, { ...request, selection: request.selection, version: request.accessVersion });
      return { token: issued.token, expireTime: issued.expiresAt, userId: issued.userId };
    },

    async updateInstallationAccess(request) {
      requireCallingService(...INSTALLATION_TOKEN_CALLERS);
      const inputs: InstallationAccessInput[] = checkBatch(request.installations, 'installations').map((access, index) => {
        for (const field of ['installationId', 'organizationId', 'integrationName'] as const)
          if (!access[field]) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `installations[${index}].${field} is required`);
        if (!access.selection) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `installations[${index}].selection is required`);
        return { ...access, selection: access.selection };
      });
      return { changedCount: await updateInstallationAccess(ctx, inputs) };
    },

    async revokeInstallationTokens(request) {
      requireCallingService(...INSTALLATION_TOKEN_CALLERS);
      const installationIds = checkBatch(request.installationIds, 'installation_ids').filter(Boolean);
      return { revokedCount: await revokeInstallationTokens(ctx, installationIds) };
    },

    async batchGetTeams(request) {
      const ids = checkBatch(request.ids);
      if (ids.length && !request.organizationId) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'organization_id is required');
      const teams = await getTeamsWithMemberCounts(ctx, request.organizationId, ids);
      return { teams: teams.map((t) => toTeam(t.team, t.members)) };
    },

    async batchGetMembers(request) {
      const userIds = [...new Set(checkBatch(request.userIds))];
      if (userIds.length === 0) return { members: [] };
      if (!request.organizationId) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'organization_id is required');
      const memberships = await membershipsOfUsers(ctx, request.organizationId, userIds);
      // The REST presenter's own views (users and counts in batched calls), so the shape is the REST one.
      const views = await viewsOf(ctx, request.organizationId, memberships);
      const byUser = new Map(views.map((view) => [view.membership.userId, view]));
      return {
        members: userIds.flatMap((userId) => {
          const view = byUser.get(userId);
          return view
            ? [{ organizationId: request.organizationId, userId, restJson: JSON.stringify(presentMember(view, { baseUrl: ctx.config.PUBLIC_BASE_URL })) }]
            : [];
        }),
      };
    },

    async listMembers(request) {
      const page = await pageOfMemberships(ctx, request.organizationId, {
        limit: Math.min(Math.max(request.pageSize || 100, 1), MAX_GRPC_BATCH),
        page: request.pageToken || undefined,
      });
      return {
        memberships: page.items.map(({ membership, teamIds }) => toMembership(membership, teamIds)),
        nextPageToken: page.next ?? '',
        totalSize: page.count,
      };
    },
  };
}
