import { list, space as spaceObject } from '@quire/contract';
import { apiUrl, created, listEnvelope, listQuerySchema, route, type KeysetPage, type Route } from '@quire/http';
import { loadSpaceAccess } from '../access';
import { collectionParams, organizationParams, spaceParams, type ContentContext, type SpaceDoc } from '../kernel';
import { resolvePublishedUrl } from './published';
import { deleteSpace, restoreSpace, transferSpace } from './space-lifecycle';
import { createSpace, duplicateSpace, listCollectionSpaces, listOrganizationSpaces, moveSpace, updateSpace, type SpaceWithRole } from './spaces';
import { presentSpace, type SpaceGitSync } from './structure-presenter';
import { createSpaceBody, getSpaceQuery, moveBody, transferBody, updateSpaceBody } from './structure-schemas';

/**
 * The Git sync states (Space.gitSync) of loaded spaces that have one, in one query. The git
 * module keeps and presents them; it builds on structure, so the service passes this in.
 */
export type SpaceGitSyncs = (spaces: ReadonlyArray<SpaceDoc>) => Promise<Map<string, SpaceGitSync>>;

/** /v1/orgs/{org}/spaces, /v1/spaces/{spaceId} and its lifecycle operations, /v1/collections/{id}/spaces. */
export function spaceRoutes(ctx: ContentContext, { gitSyncs }: { gitSyncs: SpaceGitSyncs }): Route[] {
  const baseUrl = ctx.config.PUBLIC_BASE_URL;
  // New spaces (create, duplicate) have no Git sync state: only existing ones that may have one look it up.
  const gitSyncOf = async (space: SpaceDoc) => (await gitSyncs([space])).get(space._id);
  /** A space just written, as its viewer sees it, with its Git sync state. */
  const presentWritten = async ({ space, role, defaultLevel }: SpaceWithRole) =>
    presentSpace(space, { role, defaultLevel, baseUrl, gitSync: await gitSyncOf(space) });

  /** A page of spaces the caller sees, with their Git sync states in one query. */
  const presentSpacePage = async (page: KeysetPage<SpaceWithRole>) => {
    const states = await gitSyncs(page.items.map(({ space }) => space));
    const items = page.items.map(({ space, role, defaultLevel }) => presentSpace(space, { role, defaultLevel, baseUrl, gitSync: states.get(space._id) }));
    return listEnvelope(items, page.count, page.next);
  };

  return [
    route({
      method: 'post',
      path: '/v1/orgs/:organizationId/spaces',
      summary: 'Create a space',
      response: spaceObject,
      status: 201,
      params: organizationParams,
      body: createSpaceBody,
      handler: async ({ caller, params, body }) => {
        const { space, role, defaultLevel } = await createSpace(ctx, caller.userId, params.organizationId, body);
        return created(apiUrl(baseUrl, `/v1/spaces/${space._id}`), presentSpace(space, { role, defaultLevel, baseUrl }));
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/spaces',
      summary: "List the organization's spaces the caller can access",
      response: list(spaceObject),
      params: organizationParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => presentSpacePage(await listOrganizationSpaces(ctx, caller.userId, params.organizationId, query)),
    }),

    route({
      method: 'get',
      path: '/v1/collections/:collectionId/spaces',
      summary: 'List the spaces of a collection the caller can access',
      response: list(spaceObject),
      params: collectionParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => presentSpacePage(await listCollectionSpaces(ctx, caller.userId, params.collectionId, query)),
    }),

    // With a shareKey, the published address comes from the share link's site (publishing owns it).
    route({
      method: 'get',
      path: '/v1/spaces/:spaceId',
      summary: 'Get a space',
      response: spaceObject,
      params: spaceParams,
      query: getSpaceQuery,
      handler: async ({ caller, params, query: { shareKey } }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId, { cached: true });
        const published = shareKey === undefined ? undefined : await resolvePublishedUrl(ctx, access.space, shareKey);
        return presentSpace(access.space, { role: access.role, defaultLevel: access.defaultLevel, baseUrl, published, gitSync: await gitSyncOf(access.space) });
      },
    }),

    route({
      method: 'patch',
      path: '/v1/spaces/:spaceId',
      summary: "Update a space's settings",
      response: spaceObject,
      params: spaceParams,
      body: updateSpaceBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        return presentWritten(await updateSpace(ctx, caller.userId, access, body));
      },
    }),

    route({
      method: 'delete',
      path: '/v1/spaces/:spaceId',
      summary: 'Delete a space (restorable until its retention ends)',
      params: spaceParams,
      handler: async ({ caller, params }) => {
        await deleteSpace(ctx, caller.userId, params.spaceId);
      },
    }),

    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/duplicate',
      summary: 'Duplicate a space with its current content',
      response: spaceObject,
      status: 201,
      params: spaceParams,
      handler: async ({ caller, params }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        const { space, role, defaultLevel } = await duplicateSpace(ctx, caller.userId, access);
        return created(apiUrl(baseUrl, `/v1/spaces/${space._id}`), presentSpace(space, { role, defaultLevel, baseUrl }));
      },
    }),

    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/restore',
      summary: 'Restore a deleted space',
      response: spaceObject,
      params: spaceParams,
      handler: async ({ caller, params }) => presentWritten(await restoreSpace(ctx, caller.userId, params.spaceId)),
    }),

    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/move',
      summary: 'Move a space to another collection or next to a sibling',
      response: spaceObject,
      params: spaceParams,
      body: moveBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        return presentWritten(await moveSpace(ctx, caller.userId, access, body));
      },
    }),

    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/transfer',
      summary: 'Transfer a space to another organization',
      response: spaceObject,
      params: spaceParams,
      body: transferBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        return presentWritten(await transferSpace(ctx, caller.userId, access, body.organization));
      },
    }),
  ];
}
