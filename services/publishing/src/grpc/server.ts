import { HttpError } from '@quire/http';
import type { publishing } from '@quire/proto';
import { GrpcError, grpcStatus, checkBatch, requireCallingService } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import { loadOrgAccess, seesSite, type OrgAccess } from '../domain/access';
import type { PublishingContext } from '../domain/context';
import { resolveSharedSpace } from '../domain/share-links';
import { countSiteSpaces, countSitesOf, getSites } from '../domain/sites';
import { detachSpaces } from '../domain/space-events';
import { recordSiteViews } from '../published';
import { presentSite } from '../presenters/site-presenter';

const toSite = (site: SiteDoc, restJson = ''): publishing.Site => ({
  id: site._id,
  organizationId: site.organizationId,
  title: site.title,
  visibility: site.visibility,
  published: site.published,
  createTime: site.createdAt,
  restJson,
});

/**
 * Each site as the REST API presents it to `viewerUserId` (one membership lookup and one count
 * of site spaces per organization). Someone with no role in the site's organization (an
 * integration's owner looking at the sites it is installed on) sees no permission and no site space.
 */
async function presentSitesTo(ctx: PublishingContext, sites: SiteDoc[], viewerUserId: string): Promise<Map<string, string>> {
  const byOrganization = new Map<string, SiteDoc[]>();
  for (const site of sites) byOrganization.set(site.organizationId, [...(byOrganization.get(site.organizationId) ?? []), site]);
  const presented = new Map<string, string>();
  for (const [organizationId, ofOrganization] of byOrganization) {
    let access: OrgAccess | undefined;
    try {
      access = await loadOrgAccess(ctx, viewerUserId, organizationId);
    } catch (error) {
      if (!(error instanceof HttpError && error.status === 404)) throw error;
    }
    const counts = access
      ? await countSiteSpaces(
          ctx,
          access,
          ofOrganization.map((site) => site._id),
        )
      : new Map<string, number>();
    for (const site of ofOrganization) {
      // A member who may not see this site (an installation that does not cover it) sees it as an outsider.
      const seen = access && seesSite(access, site._id) ? access : undefined;
      const rest = presentSite(site, {
        siteSpaces: seen ? (counts.get(site._id) ?? 0) : 0,
        access: seen ?? { organizationId, userId: viewerUserId, role: 'read' },
        config: ctx.config,
      });
      const permissions = seen
        ? rest.permissions
        : (Object.fromEntries(Object.keys(rest.permissions).map((key) => [key, false])) as Record<keyof typeof rest.permissions, boolean>);
      presented.set(site._id, JSON.stringify({ ...rest, permissions }));
    }
  }
  return presented;
}

/** PublishingService over gRPC: sites and site counts for other services, detaching deleted spaces, share keys for content. */
export function publishingGrpc(ctx: PublishingContext): publishing.PublishingServiceImplementation {
  return {
    async batchGetSites(request) {
      const ids = checkBatch(request.ids);
      const sites = await getSites(ctx, ids);
      if (!request.viewerUserId) return { sites: sites.map((site) => toSite(site)) };
      const presented = await presentSitesTo(ctx, sites, request.viewerUserId);
      return { sites: sites.map((site) => toSite(site, presented.get(site._id))) };
    },

    async recordSiteViews(request) {
      // Only the gateway answers revisits itself.
      requireCallingService('gateway');
      return { recordedCount: await recordSiteViews(ctx, checkBatch(request.views, 'views')) };
    },

    async detachSpaces(request) {
      const detached = await detachSpaces(ctx, checkBatch(request.spaceIds));
      return { detachedCount: detached };
    },

    async batchCountSites(request) {
      const ids = checkBatch(request.organizationIds);
      if (ids.some((id) => !id)) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'organization_ids must not be empty strings');
      const counts = await countSitesOf(ctx, ids);
      return { counts: ids.map((id) => counts.get(id) ?? 0) };
    },

    async resolveShareKey(request) {
      for (const [field, value] of [
        ['space_id', request.spaceId],
        ['share_key', request.shareKey],
        ['organization_id', request.organizationId],
      ]) {
        if (!value) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `${field} is required`);
      }
      return resolveSharedSpace(ctx, request);
    },
  };
}
