import { list, teamContentPermission, userContentPermission } from '@quire/contract';
import { listEnvelope, listQuerySchema, route, type Route } from '@quire/http';
import { viewerWithOrgRole, type ContentContext } from '../kernel';
import { inviteToResource, listGrants, loadAdministeredResource, removeGrant, teamGrantViews, updateGrant, userGrantViews, type GrantResource } from './grants';
import { getStanding } from './membership';
import { presentTeamPermission, presentUserPermission } from './permission-presenter';
import { inviteBody, permissionParams, updatePermissionBody } from './permission-schemas';

/** The two kinds of resource whose explicit roles are managed alike, by their admins. */
const RESOURCES = [
  { type: 'space', noun: 'a space', root: '/v1/spaces/:spaceId/permissions', param: 'spaceId' },
  { type: 'collection', noun: 'a collection', root: '/v1/collections/:collectionId/permissions', param: 'collectionId' },
] as const;

const SUBJECTS = [
  { type: 'user', noun: "a user's", segment: 'users', param: 'userId' },
  { type: 'team', noun: "a team's", segment: 'teams', param: 'teamId' },
] as const;

/**
 * /v1/spaces/{spaceId}/permissions/** and /v1/collections/{collectionId}/permissions/**
 * (OpenAPI space-permissions, collection-permissions): explicit roles of users and teams,
 * managed by the resource's admins (404 invisible, 403 not admin), feeding the effective role.
 */
export function permissionRoutes(ctx: ContentContext): Route[] {
  const baseUrl = ctx.config.PUBLIC_BASE_URL;

  return RESOURCES.flatMap((resource) => {
    const schemas = permissionParams(resource.param);
    const administered = (userId: string, id: string): Promise<GrantResource> => loadAdministeredResource(ctx, userId, resource.type, id);

    return [
      route({
        method: 'post',
        path: resource.root,
        summary: `Invite users and teams to ${resource.noun} with a role`,
        params: schemas.resource,
        body: inviteBody,
        handler: async ({ caller, params, body }) => {
          await inviteToResource(ctx, await administered(caller.userId, params[resource.param]), body);
        },
      }),

      route({
        method: 'get',
        path: `${resource.root}/users`,
        summary: `List the users with an explicit role on ${resource.noun}`,
        response: list(userContentPermission),
        params: schemas.resource,
        query: listQuerySchema,
        handler: async ({ caller, params, query }) => {
          const target = await administered(caller.userId, params[resource.param]);
          const page = await listGrants(ctx, target, 'user', query);
          const [views, standing] = await Promise.all([
            userGrantViews(ctx, target.organizationId, page.items),
            getStanding(ctx, target.organizationId, caller.userId),
          ]);
          return listEnvelope(
            views.map((view) => presentUserPermission(view, { baseUrl, viewer: viewerWithOrgRole(standing.orgRole) })),
            page.count,
            page.next,
          );
        },
      }),

      route({
        method: 'get',
        path: `${resource.root}/teams`,
        summary: `List the teams with an explicit role on ${resource.noun}`,
        response: list(teamContentPermission),
        params: schemas.resource,
        query: listQuerySchema,
        handler: async ({ caller, params, query }) => {
          const target = await administered(caller.userId, params[resource.param]);
          const page = await listGrants(ctx, target, 'team', query);
          const views = await teamGrantViews(ctx, target.organizationId, page.items);
          // Loaded for the admin check already: cached for this request, not asked again.
          const standing = views.length === 0 ? null : await getStanding(ctx, target.organizationId, caller.userId);
          return listEnvelope(standing ? views.map((view) => presentTeamPermission(view, { caller: standing })) : [], page.count, page.next);
        },
      }),

      ...SUBJECTS.flatMap((subject) => {
        const path = `${resource.root}/${subject.segment}/:${subject.param}`;
        const subjectParams = schemas[subject.type];
        return [
          route({
            method: 'patch',
            path,
            summary: `Change ${subject.noun} explicit role on ${resource.noun}`,
            params: subjectParams,
            body: updatePermissionBody,
            handler: async ({ caller, params, body }) => {
              const target = await administered(caller.userId, params[resource.param]);
              await updateGrant(ctx, target, subject.type, params[subject.param], body.role);
            },
          }),

          route({
            method: 'delete',
            path,
            summary: `Remove ${subject.noun} explicit role on ${resource.noun}`,
            params: subjectParams,
            handler: async ({ caller, params }) => {
              // A resource the caller cannot see has nothing to delete: 204 like any DELETE of nothing.
              const target = await administered(caller.userId, params[resource.param]).catch((error: unknown) => {
                if ((error as { status?: number }).status === 404) return null;
                throw error;
              });
              if (target) await removeGrant(ctx, target, subject.type, params[subject.param]);
            },
          }),
        ];
      }),
    ];
  });
}
