import { Router, type Request } from 'express';
import { httpError, listEnvelope, listQuerySchema, parseInput, principalOf } from '@quire/http';
import { loadOrgAccess, requireSiteAdmin, type OrgAccess } from '../domain/access';
import { deleteUnderSite, siteOfRequest, writeSiteOfRequest } from './requests';
import { defaultAdaptiveSchema, templateConditions, validateAdaptiveSchema, type AdaptiveJsonSchema } from '../domain/adaptive-schema';
import type { PublishingContext } from '../domain/context';
import { loadView } from '../domain/published';
import { createShareLink, deleteShareLink, listShareLinks, resolveShareKey, updateShareLink } from '../domain/share-links';
import { countSiteSpaces, createSite, deleteSite, listSites, setAdaptiveSchema, setPublished, updateSite } from '../domain/sites';
import { siteApiUrl } from '../domain/urls';
import { presentPublishingAuth, regeneratePublishingAuth, updatePublishingAuth, visitorClaims } from '../domain/visitor-auth';
import type { SiteDoc } from '../db/models';
import { presentShareLink, presentSite, publishedContent } from './presenters';
import {
  adaptiveSchemaBody,
  createShareLinkBody,
  createSiteBody,
  listSitesQuery,
  organizationParams,
  publishedQuery,
  shareLinkParams,
  updatePublishingAuthBody,
  updateShareLinkBody,
  updateSiteBody,
} from './schemas';

const SITES = '/v1/orgs/:organizationId/sites';
const SITE = `${SITES}/:siteId`;

/** Sites themselves: CRUD, publishing, share links, visitor auth, adaptive schema, published structure. */
export function siteRouter(ctx: PublishingContext): Router {
  const router = Router();
  const { config } = ctx;

  const siteOf = (req: Request) => siteOfRequest(ctx, req);
  const presentOne = async (site: SiteDoc, access: OrgAccess) => {
    const counts = await countSiteSpaces(ctx, access, [site._id]);
    return presentSite(site, counts.get(site._id) ?? 0, access, config);
  };

  router.get(SITES, async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const query = parseInput(listSitesQuery, req.query, 'query');
    const access = await loadOrgAccess(ctx, userId, organizationId);
    const page = await listSites(ctx, access, query, query);
    const counts = await countSiteSpaces(
      ctx,
      access,
      page.items.map((s) => s._id),
    );
    res.json(
      listEnvelope(
        page.items.map((site) => presentSite(site, counts.get(site._id) ?? 0, access, config)),
        page.count,
        page.next,
      ),
    );
  });

  router.post(SITES, async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const access = await loadOrgAccess(ctx, userId, organizationId);
    requireSiteAdmin(access, 'create sites');
    const body = parseInput(createSiteBody, req.body, 'body');
    const site = await createSite(ctx, access, body);
    res
      .status(201)
      .location(siteApiUrl(config, organizationId, site._id))
      .json(await presentOne(site, access));
  });

  router.get(SITE, async (req, res) => {
    const { access, site } = await siteOf(req);
    res.json(await presentOne(site, access));
  });

  router.patch(SITE, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'update sites', async ({ access, site }) => {
      const body = parseInput(updateSiteBody, req.body, 'body');
      res.json(await presentOne(await updateSite(ctx, site, body), access));
    });
  });

  // A missing site is a 204 like any DELETE; another organization's stays a 404 (loadOrgAccess).
  router.delete(SITE, async (req, res) => {
    await deleteUnderSite(ctx, req, 'delete sites', (site) => deleteSite(ctx, site._id));
    res.status(204).end();
  });

  for (const [action, published] of [
    ['publish', true],
    ['unpublish', false],
  ] as const) {
    router.post(`${SITE}/${action}`, async (req, res) => {
      await writeSiteOfRequest(ctx, req, `${action} sites`, async ({ access, site }) => {
        res.json(await presentOne(await setPublished(ctx, site, published), access));
      });
    });
  }

  router.get(`${SITE}/published`, async (req, res) => {
    const { access, site } = await siteOf(req);
    const query = parseInput(publishedQuery, req.query, 'query');
    const shareKey = await resolveShareKey(ctx, site, query.shareKey);
    const claims = visitorClaims(site, query.visitorAuthToken ?? query.jwt_token);
    const view = await loadView(ctx, access, site, shareKey);
    res.json(publishedContent(view, access, claims));
  });

  // Visitor authentication (OpenAPI SitePublishingAuth): the key visitor tokens are signed with.
  router.get(`${SITE}/publishing/auth`, async (req, res) => {
    const { access, site } = await siteOf(req);
    requireSiteAdmin(access, "read a site's visitor authentication key");
    res.json(presentPublishingAuth(site));
  });

  router.patch(`${SITE}/publishing/auth`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, "change a site's visitor authentication", async ({ site }) => {
      const body = parseInput(updatePublishingAuthBody, req.body, 'body');
      res.json(presentPublishingAuth(await updatePublishingAuth(ctx, site, body)));
    });
  });

  router.post(`${SITE}/publishing/auth/regenerate`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, "regenerate a site's visitor authentication key", async ({ site }) => {
      res.json(presentPublishingAuth(await regeneratePublishingAuth(ctx, site)));
    });
  });

  const schemaOf = (site: SiteDoc): AdaptiveJsonSchema => (site.adaptiveSchema ? JSON.parse(site.adaptiveSchema.json) : defaultAdaptiveSchema());
  const presentSchema = (site: SiteDoc) => ({
    object: 'site-adaptive-schema' as const,
    jsonSchema: schemaOf(site),
    updatedAt: (site.adaptiveSchema?.updatedAt ?? site.createdAt).toISOString(),
  });

  router.get(`${SITE}/adaptive-schema`, async (req, res) => {
    const { site } = await siteOf(req);
    res.json(presentSchema(site));
  });

  router.put(`${SITE}/adaptive-schema`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, "change a site's adaptive schema", async ({ site }) => {
      const { jsonSchema } = parseInput(adaptiveSchemaBody, req.body, 'body');
      const checked = validateAdaptiveSchema(jsonSchema);
      if (!checked.ok) throw httpError.badRequest(`Invalid body: ${checked.message}`);
      res.json(presentSchema(await setAdaptiveSchema(ctx, site, checked.schema)));
    });
  });

  router.get(`${SITE}/adaptive-schema/template-conditions`, async (req, res) => {
    const { site } = await siteOf(req);
    res.json({ items: templateConditions(schemaOf(site)) });
  });

  // Share links carry their secret key: only those who manage them see them.
  router.get(`${SITE}/share-links`, async (req, res) => {
    const { access, site } = await siteOf(req);
    requireSiteAdmin(access, 'list share links');
    const query = parseInput(listQuerySchema, req.query, 'query');
    const page = await listShareLinks(ctx, site, query);
    res.json(
      listEnvelope(
        page.items.map((link) => presentShareLink(link, site, config)),
        page.count,
        page.next,
      ),
    );
  });

  // Each POST is a link of its own (names are labels, not identities): sent twice, two links.
  router.post(`${SITE}/share-links`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'create share links', async ({ site }) => {
      const { name } = parseInput(createShareLinkBody, req.body, 'body');
      const link = await createShareLink(ctx, site, name);
      res
        .status(201)
        .location(siteApiUrl(config, site.organizationId, site._id, `/share-links/${link._id}`))
        .json(presentShareLink(link, site, config));
    });
  });

  router.patch(`${SITE}/share-links/:shareLinkId`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'update share links', async ({ site }) => {
      const { shareLinkId } = parseInput(shareLinkParams, req.params, 'params');
      const body = parseInput(updateShareLinkBody, req.body, 'body');
      res.json(presentShareLink(await updateShareLink(ctx, site, shareLinkId, body), site, config));
    });
  });

  router.delete(`${SITE}/share-links/:shareLinkId`, async (req, res) => {
    const { shareLinkId } = parseInput(shareLinkParams, req.params, 'params');
    await deleteUnderSite(ctx, req, 'delete share links', (site) => deleteShareLink(ctx, site, shareLinkId));
    res.status(204).end();
  });

  return router;
}
