import { list } from '@quire/contract';
import { created, listEnvelope, route, type Route } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import {
  bulkUpsertRedirects,
  checkedDestination,
  createRedirect,
  deleteRedirect,
  findRedirectBySource,
  listRedirects,
  loadRedirect,
  presentRedirect,
  redirectTarget,
  updateRedirect,
} from '../domain/redirects';
import { siteApiUrl } from '../domain/urls';
import {
  bulkRedirectsBody,
  bulkRedirectsResult,
  createRedirectBody,
  listRedirectsQuery,
  redirectBySource,
  redirectBySourceQuery,
  redirectParams,
  siteRedirect,
  updateRedirectBody,
} from './redirect-schemas';
import { deleteUnderSite, siteOfRequest, writeSiteOfRequest } from './requests';
import { siteParams } from './site-schemas';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';

/** A site's redirects (GitBook's site-redirects operations): members read them, admins change them. */
export function redirectRoutes(ctx: PublishingContext): Route[] {
  return [
    route({
      method: 'get',
      path: `${SITE}/redirects`,
      summary: "List a site's redirects",
      response: list(siteRedirect),
      params: siteParams,
      query: listRedirectsQuery,
      handler: async ({ caller, params, query }) => {
        const { site } = await siteOfRequest(ctx, caller, params);
        const page = await listRedirects(ctx, site, query, query);
        return listEnvelope(page.items.map(presentRedirect), page.count, page.next);
      },
    }),

    route({
      method: 'post',
      path: `${SITE}/redirects`,
      summary: 'Create a redirect of a site',
      response: siteRedirect,
      status: 201,
      params: siteParams,
      body: createRedirectBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'create site redirects', async ({ site }) => {
          const destination = await checkedDestination(ctx, site, body.destination);
          const redirect = await createRedirect(ctx, site, { ...body, destination });
          return created(siteApiUrl(ctx.config, site.organizationId, site._id, `/redirects/${redirect._id}`), presentRedirect(redirect));
        }),
    }),

    route({
      method: 'put',
      path: `${SITE}/redirects`,
      summary: 'Create, update, delete or publish redirects of a site in bulk',
      response: bulkRedirectsResult,
      params: siteParams,
      body: bulkRedirectsBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'change site redirects', async ({ site }) => ({
          results: await bulkUpsertRedirects(ctx, site, body.redirects),
        })),
    }),

    route({
      method: 'patch',
      path: `${SITE}/redirects/:siteRedirectId`,
      summary: 'Update a redirect of a site',
      response: siteRedirect,
      params: redirectParams,
      body: updateRedirectBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'update site redirects', async ({ site }) => {
          const redirect = await loadRedirect(ctx, site, params.siteRedirectId);
          const { destination, ...rest } = body;
          const changes = destination ? { ...rest, destination: await checkedDestination(ctx, site, destination) } : rest;
          return presentRedirect(await updateRedirect(ctx, site, redirect, changes));
        }),
    }),

    // 204 whether a redirect was deleted or there was none (GitBook answers 205 for the first: one
    // status per operation, as for roles); a missing site too, another organization's stays a 404.
    route({
      method: 'delete',
      path: `${SITE}/redirects/:siteRedirectId`,
      summary: 'Delete a redirect of a site',
      params: redirectParams,
      handler: ({ caller, params }) =>
        deleteUnderSite(ctx, caller, params, 'delete site redirects', (site) => deleteRedirect(ctx, site, params.siteRedirectId)),
    }),

    route({
      method: 'get',
      path: `${SITE}/redirect`,
      summary: "A site's redirect from a source path, with the address it sends to",
      response: redirectBySource,
      params: siteParams,
      query: redirectBySourceQuery,
      handler: async ({ caller, params, query }) => {
        const { site } = await siteOfRequest(ctx, caller, params);
        const redirect = await findRedirectBySource(ctx, site, query.source);
        return { redirect: presentRedirect(redirect), target: await redirectTarget(ctx, site, redirect.destination) };
      },
    }),
  ];
}
