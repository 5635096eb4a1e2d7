import { listEnvelope, route, type Route } from '@quire/http';
import { list, member, memberContentPermission, organizationMemberTeam, organizationPing } from '@quire/contract';
import type { IdentityContext } from '../domain/context';
import { listMemberSpaces } from '../domain/member-spaces';
import { getMember, listMembers, makeSsoMember, ping, removeMember, updateMemberRole } from '../domain/members';
import { listMemberTeams } from '../domain/teams';
import { presentMember, presentTeam } from '../presenters/directory-presenter';
import { memberListQuery, memberSpacesQuery, memberTeamsQuery, updateMemberBody } from './directory-schemas';
import { memberParams, organizationParams } from './organization-schemas';

/** /v1/orgs/{organizationId}/members/** and /ping. */
export function memberRoutes(ctx: IdentityContext): Route[] {
  const base = ctx.config.PUBLIC_BASE_URL;

  return [
    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/members',
      summary: "List an organization's members",
      response: list(member),
      params: organizationParams,
      query: memberListQuery,
      handler: async ({ caller, params, query }) => {
        const page = await listMembers(ctx, caller.userId, params.organizationId, query);
        return listEnvelope(
          page.items.map((view) => presentMember(view, { baseUrl: base })),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/members/:userId',
      summary: 'Get a member of an organization',
      response: member,
      params: memberParams,
      handler: async ({ caller, params }) => presentMember(await getMember(ctx, caller.userId, params.organizationId, params.userId), { baseUrl: base }),
    }),

    route({
      method: 'patch',
      path: '/v1/orgs/:organizationId/members/:userId',
      summary: "Change a member's role",
      response: member,
      params: memberParams,
      body: updateMemberBody,
      handler: async ({ caller, params, body }) =>
        presentMember(await updateMemberRole(ctx, caller.userId, params.organizationId, params.userId, body.role), { baseUrl: base }),
    }),

    route({
      method: 'delete',
      path: '/v1/orgs/:organizationId/members/:userId',
      summary: 'Remove a member from an organization',
      params: memberParams,
      handler: async ({ caller, params }) => {
        await removeMember(ctx, caller.userId, params.organizationId, params.userId);
      },
    }),

    route({
      method: 'post',
      path: '/v1/orgs/:organizationId/members/:userId/sso',
      summary: 'Make a member an SSO member',
      response: member,
      params: memberParams,
      handler: async ({ caller, params }) => presentMember(await makeSsoMember(ctx, caller.userId, params.organizationId, params.userId), { baseUrl: base }),
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/members/:userId/spaces',
      summary: "List a member's spaces",
      response: list(memberContentPermission),
      params: memberParams,
      query: memberSpacesQuery,
      handler: async ({ caller, params, query }) => {
        const page = await listMemberSpaces(ctx, caller.userId, params.organizationId, params.userId, query);
        return listEnvelope(page.items, page.count, page.next);
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/members/:userId/teams',
      summary: "List a member's teams",
      response: list(organizationMemberTeam),
      params: memberParams,
      query: memberTeamsQuery,
      handler: async ({ caller, params, query }) => {
        const page = await listMemberTeams(ctx, caller.userId, params.organizationId, params.userId, query);
        return listEnvelope(
          page.items.map((item) => ({ team: presentTeam(item.team), member: { role: item.role } })),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'post',
      path: '/v1/orgs/:organizationId/ping',
      summary: "Record the caller's activity in an organization",
      response: organizationPing,
      params: organizationParams,
      handler: async ({ caller, params }) => ping(ctx, caller.userId, params.organizationId),
    }),
  ];
}
