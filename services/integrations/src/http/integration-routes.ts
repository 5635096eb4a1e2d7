import { integration as integrationObject, list } from '@quire/contract';
import { httpError, listEnvelope, route, sendImage, type Route } from '@quire/http';
import type { Principal } from '@quire/runtime';
import type { IntegrationDoc } from '../db/models';
import { listIntegrations, loadIntegration, publishIntegration, unpublishIntegration, type IntegrationViewer } from '../domain/catalogue';
import type { IntegrationsContext } from '../domain/context';
import { loadIntegrationFile } from '../domain/files';
import { organizationsAsSeenBy } from '../domain/organizations';
import { presentIntegration } from '../presenters/integration-presenter';
import { INTEGRATION_PATH, integrationFileParams, integrationParams, listIntegrationsQuery, publishIntegrationBody } from './integration-schemas';

/** Files never change at an address (their id is a digest of their bytes): cached for a year. */

/** The catalogue: publish, list, read and unpublish integrations, and their public image files. */
export function integrationRoutes(ctx: IntegrationsContext): Route[] {
  const baseUrl = ctx.config.PUBLIC_BASE_URL;

  /** Integrations as the caller sees them, with their owners fetched in one identity call. */
  const present = async (caller: Principal, items: Array<{ integration: IntegrationDoc; viewer: IntegrationViewer }>) => {
    const owners = await organizationsAsSeenBy(
      ctx,
      caller.userId,
      items.map(({ integration }) => integration.ownerOrganizationId),
    );
    return items.flatMap(({ integration, viewer }) => {
      const owner = owners.get(integration.ownerOrganizationId);
      if (owner) return [presentIntegration(integration, { owner, viewer, baseUrl })];
      // Identity no longer knows the owner: the integration has nobody to answer for it.
      ctx.logger.warn({ integration: integration._id, organizationId: integration.ownerOrganizationId }, 'integration owner not found');
      return [];
    });
  };
  const presentOne = async (caller: Principal, integration: IntegrationDoc, viewer: IntegrationViewer) => {
    const [presented] = await present(caller, [{ integration, viewer }]);
    if (!presented) throw httpError.notFound('Integration');
    return presented;
  };

  return [
    route({
      method: 'get',
      path: '/v1/integrations',
      summary: 'List integrations',
      response: list(integrationObject),
      query: listIntegrationsQuery,
      handler: async ({ caller, query }) => {
        const page = await listIntegrations(ctx, caller, query, query);
        const items = await present(
          caller,
          page.items.map((integration) => ({ integration, viewer: page.viewers.get(integration._id)! })),
        );
        return listEnvelope(items, page.count, page.next);
      },
    }),

    route({
      method: 'get',
      path: INTEGRATION_PATH,
      summary: 'Get an integration by its name',
      response: integrationObject,
      params: integrationParams,
      handler: async ({ caller, params }) => {
        const { integration, viewer } = await loadIntegration(ctx, caller, params.integrationName);
        return presentOne(caller, integration, viewer);
      },
    }),

    route({
      method: 'post',
      path: INTEGRATION_PATH,
      summary: 'Publish an integration',
      response: integrationObject,
      params: integrationParams,
      body: publishIntegrationBody,
      handler: async ({ caller, params, body }) => {
        const { integration, access } = await publishIntegration(ctx, caller, params.integrationName, body);
        return presentOne(caller, integration, { userId: caller.userId, ownerRole: access.role });
      },
    }),

    route({
      method: 'delete',
      path: INTEGRATION_PATH,
      summary: 'Unpublish an integration',
      params: integrationParams,
      handler: async ({ caller, params }) => {
        await unpublishIntegration(ctx, caller, params.integrationName);
      },
    }),

    route({
      method: 'get',
      path: '/v1/public/integrations/:integrationName/files/:fileId',
      summary: "An integration's icon or preview image",
      // PNG, JPEG, GIF or WebP: the type the image was recognised as when it was published.
      produces: 'image/*',
      alsoAnswers: { '304': 'Not modified: the ETag sent in If-None-Match is the image’s' },
      access: 'public',
      params: integrationFileParams,
      handler: async ({ params, req, res }) => sendImage(req, res, await loadIntegrationFile(ctx, params.integrationName, params.fileId)),
    }),
  ];
}
