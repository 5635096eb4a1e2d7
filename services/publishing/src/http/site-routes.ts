import {
  list,
  publishedContentSite,
  shareLink as shareLinkObject,
  site as siteObject,
  siteAdaptiveSchema,
  siteAdaptiveTemplateConditions,
  sitePublishingAuth,
} from '@quire/contract';
import { created, httpError, listEnvelope, listQuerySchema, route, type Route } from '@quire/http';
import { loadOrgAccess, requireSiteAdmin, type OrgAccess } from '../domain/access';
import { deleteUnderSite, siteOfRequest, writeSiteOfRequest } from './requests';
import { templateConditions, validateAdaptiveSchema } from '../domain/adaptive-schema';
import type { PublishingContext } from '../domain/context';
import { loadView } from '../domain/published';
import { createShareLink, deleteShareLink, listShareLinks, resolveShareKey, updateShareLink } from '../domain/share-links';
import { adaptiveSchemaOf, countSiteSpaces, createSite, deleteSite, listSites, setAdaptiveSchema, setPublished, updateSite } from '../domain/sites';
import { siteApiUrl } from '../domain/urls';
import { presentPublishingAuth, regeneratePublishingAuth, updatePublishingAuth, visitorClaims } from '../domain/visitor-auth';
import type { SiteDoc } from '../db/models';
import { presentShareLink, presentSite, publishedContent } from '../presenters/site-presenter';
import {
  adaptiveSchemaBody,
  createShareLinkBody,
  createSiteBody,
  listSitesQuery,
  organizationParams,
  publishedQuery,
  shareLinkParams,
  siteParams,
  updatePublishingAuthBody,
  updateShareLinkBody,
  updateSiteBody,
} from './site-schemas';

const SITES = '/v1/orgs/:organizationId/sites';
const SITE = `${SITES}/:siteId`;

/** Sites themselves: CRUD, publishing, share links, visitor auth, adaptive schema, published structure. */
export function siteRoutes(ctx: PublishingContext): Route[] {
  const { config } = ctx;

  const presentOne = async (site: SiteDoc, access: OrgAccess) => {
    const counts = await countSiteSpaces(ctx, access, [site._id]);
    return presentSite(site, { siteSpaces: counts.get(site._id) ?? 0, access, config });
  };
  const presentSchema = (site: SiteDoc) => ({
    object: 'site-adaptive-schema' as const,
    jsonSchema: adaptiveSchemaOf(site),
    updatedAt: (site.adaptiveSchema?.updatedAt ?? site.createdAt).toISOString(),
  });

  return [
    route({
      method: 'get',
      path: SITES,
      summary: "List an organization's sites",
      response: list(siteObject),
      params: organizationParams,
      query: listSitesQuery,
      handler: async ({ caller, params, query }) => {
        const access = await loadOrgAccess(ctx, caller.userId, params.organizationId);
        const page = await listSites(ctx, access, query, query);
        const counts = await countSiteSpaces(
          ctx,
          access,
          page.items.map((s) => s._id),
        );
        return listEnvelope(
          page.items.map((site) => presentSite(site, { siteSpaces: counts.get(site._id) ?? 0, access, config })),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'post',
      path: SITES,
      summary: 'Create a site',
      response: siteObject,
      status: 201,
      params: organizationParams,
      body: createSiteBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadOrgAccess(ctx, caller.userId, params.organizationId);
        requireSiteAdmin(access, 'create sites');
        const site = await createSite(ctx, access, body);
        return created(siteApiUrl(config, params.organizationId, site._id), await presentOne(site, access));
      },
    }),

    route({
      method: 'get',
      path: SITE,
      summary: 'Get a site',
      response: siteObject,
      params: siteParams,
      handler: async ({ caller, params }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        return presentOne(site, access);
      },
    }),

    route({
      method: 'patch',
      path: SITE,
      summary: 'Update a site',
      response: siteObject,
      params: siteParams,
      body: updateSiteBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'update sites', async ({ access, site }) => presentOne(await updateSite(ctx, site, body), access)),
    }),

    // A missing site is a 204 like any DELETE; another organization's stays a 404 (loadOrgAccess).
    route({
      method: 'delete',
      path: SITE,
      summary: 'Delete a site with everything in it',
      params: siteParams,
      handler: ({ caller, params }) => deleteUnderSite(ctx, caller, params, 'delete sites', (site) => deleteSite(ctx, site._id)),
    }),

    ...(
      [
        ['publish', true],
        ['unpublish', false],
      ] as const
    ).map(([action, published]) =>
      route({
        method: 'post',
        path: `${SITE}/${action}`,
        summary: published ? 'Publish a site' : 'Unpublish a site',
        response: siteObject,
        params: siteParams,
        handler: ({ caller, params }) =>
          writeSiteOfRequest(ctx, caller, params, `${action} sites`, async ({ access, site }) => presentOne(await setPublished(ctx, site, published), access)),
      }),
    ),

    route({
      method: 'get',
      path: `${SITE}/published`,
      summary: "A site's published structure as a visitor sees it",
      response: publishedContentSite,
      params: siteParams,
      query: publishedQuery,
      handler: async ({ caller, params, query }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        const shareKey = await resolveShareKey(ctx, site, query.shareKey);
        const claims = visitorClaims(site, query.visitorAuthToken ?? query.jwt_token);
        const view = await loadView(ctx, access, site, shareKey);
        return publishedContent(view, access, claims);
      },
    }),

    // Visitor authentication (OpenAPI SitePublishingAuth): the key visitor tokens are signed with,
    // and the OpenID Connect provider visitors may sign in with (shown without its client secret).
    route({
      method: 'get',
      path: `${SITE}/publishing/auth`,
      summary: "Get a site's visitor authentication settings",
      response: sitePublishingAuth,
      params: siteParams,
      handler: async ({ caller, params }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        requireSiteAdmin(access, "read a site's visitor authentication key");
        return presentPublishingAuth(site, config);
      },
    }),

    route({
      method: 'patch',
      path: `${SITE}/publishing/auth`,
      summary: "Update a site's visitor authentication settings",
      response: sitePublishingAuth,
      params: siteParams,
      body: updatePublishingAuthBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, "change a site's visitor authentication", async ({ site }) =>
          presentPublishingAuth(await updatePublishingAuth(ctx, site, body), config),
        ),
    }),

    route({
      method: 'post',
      path: `${SITE}/publishing/auth/regenerate`,
      summary: "Regenerate a site's visitor authentication key",
      response: sitePublishingAuth,
      params: siteParams,
      handler: ({ caller, params }) =>
        writeSiteOfRequest(ctx, caller, params, "regenerate a site's visitor authentication key", async ({ site }) =>
          presentPublishingAuth(await regeneratePublishingAuth(ctx, site), config),
        ),
    }),

    route({
      method: 'get',
      path: `${SITE}/adaptive-schema`,
      summary: "Get a site's adaptive content schema",
      response: siteAdaptiveSchema,
      params: siteParams,
      handler: async ({ caller, params }) => presentSchema((await siteOfRequest(ctx, caller, params)).site),
    }),

    route({
      method: 'put',
      path: `${SITE}/adaptive-schema`,
      summary: "Set a site's adaptive content schema",
      response: siteAdaptiveSchema,
      params: siteParams,
      body: adaptiveSchemaBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, "change a site's adaptive schema", async ({ site }) => {
          const checked = validateAdaptiveSchema(body.jsonSchema);
          if (!checked.ok) throw httpError.badRequest(`Invalid body: ${checked.message}`);
          return presentSchema(await setAdaptiveSchema(ctx, site, checked.schema));
        }),
    }),

    route({
      method: 'get',
      path: `${SITE}/adaptive-schema/template-conditions`,
      summary: 'Example conditions built from the adaptive schema',
      response: siteAdaptiveTemplateConditions,
      params: siteParams,
      handler: async ({ caller, params }) => ({ items: templateConditions(adaptiveSchemaOf((await siteOfRequest(ctx, caller, params)).site)) }),
    }),

    // Share links carry their secret key: only those who manage them see them.
    route({
      method: 'get',
      path: `${SITE}/share-links`,
      summary: "List a site's share links",
      response: list(shareLinkObject),
      params: siteParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        requireSiteAdmin(access, 'list share links');
        const page = await listShareLinks(ctx, site, query);
        return listEnvelope(
          page.items.map((link) => presentShareLink(link, { site, config })),
          page.count,
          page.next,
        );
      },
    }),

    // Each POST is a link of its own (names are labels, not identities): sent twice, two links.
    route({
      method: 'post',
      path: `${SITE}/share-links`,
      summary: 'Create a share link',
      response: shareLinkObject,
      status: 201,
      params: siteParams,
      body: createShareLinkBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'create share links', async ({ site }) => {
          const link = await createShareLink(ctx, site, body.name);
          return created(siteApiUrl(config, site.organizationId, site._id, `/share-links/${link._id}`), presentShareLink(link, { site, config }));
        }),
    }),

    route({
      method: 'patch',
      path: `${SITE}/share-links/:shareLinkId`,
      summary: 'Update a share link',
      response: shareLinkObject,
      params: shareLinkParams,
      body: updateShareLinkBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'update share links', async ({ site }) =>
          presentShareLink(await updateShareLink(ctx, site, params.shareLinkId, body), { site, config }),
        ),
    }),

    route({
      method: 'delete',
      path: `${SITE}/share-links/:shareLinkId`,
      summary: 'Delete a share link',
      params: shareLinkParams,
      handler: ({ caller, params }) => deleteUnderSite(ctx, caller, params, 'delete share links', (site) => deleteShareLink(ctx, site, params.shareLinkId)),
    }),
  ];
}
