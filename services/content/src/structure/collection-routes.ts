import { collection as collectionObject, list } from '@quire/contract';
import { apiUrl, created, listEnvelope, route, type Route } from '@quire/http';
import { loadCollectionAccess } from '../access';
import { collectionParams, organizationParams, type ContentContext } from '../kernel';
import { createCollection, deleteCollection, listCollections, moveCollection, transferCollection, updateCollection } from './collections';
import { presentCollection } from './structure-presenter';
import { createCollectionBody, listCollectionsQuery, moveBody, transferBody, updateCollectionBody } from './structure-schemas';

/** /v1/orgs/{org}/collections and /v1/collections/{collectionId} with move and transfer. */
export function collectionRoutes(ctx: ContentContext): Route[] {
  const baseUrl = ctx.config.PUBLIC_BASE_URL;

  return [
    route({
      method: 'post',
      path: '/v1/orgs/:organizationId/collections',
      summary: 'Create a collection',
      response: collectionObject,
      status: 201,
      params: organizationParams,
      body: createCollectionBody,
      handler: async ({ caller, params, body }) => {
        const { collection, role, defaultLevel } = await createCollection(ctx, caller.userId, params.organizationId, body);
        return created(apiUrl(baseUrl, `/v1/collections/${collection._id}`), presentCollection(collection, { role, defaultLevel, baseUrl }));
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/collections',
      summary: "List the organization's collections the caller can access",
      response: list(collectionObject),
      params: organizationParams,
      query: listCollectionsQuery,
      handler: async ({ caller, params, query: { nested, ...query } }) => {
        const page = await listCollections(ctx, caller.userId, params.organizationId, { ...query, nested: nested ?? true });
        return listEnvelope(
          page.items.map(({ collection, role, defaultLevel }) => presentCollection(collection, { role, defaultLevel, baseUrl })),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'get',
      path: '/v1/collections/:collectionId',
      summary: 'Get a collection',
      response: collectionObject,
      params: collectionParams,
      handler: async ({ caller, params }) => {
        const access = await loadCollectionAccess(ctx, caller.userId, params.collectionId);
        return presentCollection(access.collection, { role: access.role, defaultLevel: access.defaultLevel, baseUrl });
      },
    }),

    route({
      method: 'patch',
      path: '/v1/collections/:collectionId',
      summary: 'Update a collection',
      response: collectionObject,
      params: collectionParams,
      body: updateCollectionBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadCollectionAccess(ctx, caller.userId, params.collectionId);
        const { collection, role, defaultLevel } = await updateCollection(ctx, caller.userId, access, body);
        return presentCollection(collection, { role, defaultLevel, baseUrl });
      },
    }),

    route({
      method: 'delete',
      path: '/v1/collections/:collectionId',
      summary: 'Delete an empty collection',
      params: collectionParams,
      handler: async ({ caller, params }) => {
        await deleteCollection(ctx, caller.userId, params.collectionId);
      },
    }),

    route({
      method: 'post',
      path: '/v1/collections/:collectionId/move',
      summary: 'Move a collection into another one or next to a sibling',
      response: collectionObject,
      params: collectionParams,
      body: moveBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadCollectionAccess(ctx, caller.userId, params.collectionId);
        const { collection, role, defaultLevel } = await moveCollection(ctx, caller.userId, access, body);
        return presentCollection(collection, { role, defaultLevel, baseUrl });
      },
    }),

    route({
      method: 'post',
      path: '/v1/collections/:collectionId/transfer',
      summary: 'Transfer a collection and its content to another organization',
      response: collectionObject,
      params: collectionParams,
      body: transferBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadCollectionAccess(ctx, caller.userId, params.collectionId);
        const { collection, role, defaultLevel } = await transferCollection(ctx, caller.userId, access, body.organization);
        return presentCollection(collection, { role, defaultLevel, baseUrl });
      },
    }),
  ];
}
