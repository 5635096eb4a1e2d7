import { apiUrl, created, listEnvelope, listQuerySchema, route, type Route } from '@quire/http';
import { list, organizationTeamMember, team } from '@quire/contract';
import type { IdentityContext } from '../domain/context';
import {
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  renameTeam,
  setTeamMemberRole,
  updateTeamMembers,
} from '../domain/teams';
import { presentTeam, presentTeamMember } from '../presenters/directory-presenter';
import { createTeamBody, teamListQuery, teamMemberRoleBody, updateTeamBody, updateTeamMembersBody } from './directory-schemas';
import { organizationParams, teamMemberParams, teamParams } from './organization-schemas';

/** /v1/orgs/{organizationId}/teams/**. */
export function teamRoutes(ctx: IdentityContext): Route[] {
  const base = ctx.config.PUBLIC_BASE_URL;

  return [
    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/teams',
      summary: "List an organization's teams",
      response: list(team),
      params: organizationParams,
      query: teamListQuery,
      handler: async ({ caller, params, query }) => {
        const page = await listTeams(ctx, caller.userId, params.organizationId, query);
        return listEnvelope(page.items.map(presentTeam), page.count, page.next);
      },
    }),

    route({
      method: 'put',
      path: '/v1/orgs/:organizationId/teams',
      summary: 'Create a team',
      response: team,
      status: 201,
      params: organizationParams,
      body: createTeamBody,
      handler: async ({ caller, params, body }) => {
        const presented = presentTeam(await createTeam(ctx, caller.userId, params.organizationId, body));
        return created(apiUrl(base, `/v1/orgs/${params.organizationId}/teams/${presented.id}`), presented);
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/teams/:teamId',
      summary: 'Get a team',
      response: team,
      params: teamParams,
      handler: async ({ caller, params }) => presentTeam(await getTeam(ctx, caller.userId, params.organizationId, params.teamId)),
    }),

    route({
      method: 'patch',
      path: '/v1/orgs/:organizationId/teams/:teamId',
      summary: 'Rename a team',
      response: team,
      params: teamParams,
      body: updateTeamBody,
      handler: async ({ caller, params, body }) => presentTeam(await renameTeam(ctx, caller.userId, params.organizationId, params.teamId, body.title)),
    }),

    route({
      method: 'delete',
      path: '/v1/orgs/:organizationId/teams/:teamId',
      summary: 'Delete a team',
      params: teamParams,
      handler: async ({ caller, params }) => {
        await deleteTeam(ctx, caller.userId, params.organizationId, params.teamId);
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/teams/:teamId/members',
      summary: "List a team's members",
      response: list(organizationTeamMember),
      params: teamParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const page = await listTeamMembers(ctx, caller.userId, params.organizationId, params.teamId, query);
        return listEnvelope(
          page.items.map((item) => presentTeamMember(item, { baseUrl: base })),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'put',
      path: '/v1/orgs/:organizationId/teams/:teamId/members',
      summary: "Add and remove a team's members",
      params: teamParams,
      body: updateTeamMembersBody,
      handler: async ({ caller, params, body }) => {
        await updateTeamMembers(ctx, caller.userId, params.organizationId, params.teamId, body);
      },
    }),

    route({
      method: 'put',
      path: '/v1/orgs/:organizationId/teams/:teamId/members/:userId',
      summary: "Set a team member's role",
      params: teamMemberParams,
      body: teamMemberRoleBody,
      handler: async ({ caller, params, body }) => {
        await setTeamMemberRole(ctx, caller.userId, params.organizationId, params.teamId, params.userId, body.role);
      },
    }),

    route({
      method: 'delete',
      path: '/v1/orgs/:organizationId/teams/:teamId/members/:userId',
      summary: 'Remove a member from a team',
      params: teamMemberParams,
      handler: async ({ caller, params }) => {
        await removeTeamMember(ctx, caller.userId, params.organizationId, params.teamId, params.userId);
      },
    }),
  ];
}
