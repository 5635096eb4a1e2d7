import type { Request } from 'express';
import { parseInput, principalOf } from '@quire/http';
import type { SiteDoc } from '../db/models';
import { loadOrgAccess, loadSiteAccess, requireSiteAdmin, type OrgAccess } from '../domain/access';
import type { PublishingContext } from '../domain/context';
import { siteParams } from './schemas';

/** The caller's access and the site of a /sites/{siteId}/… request (404 for either missing). */
export async function siteOfRequest(ctx: PublishingContext, req: Request): Promise<{ access: OrgAccess; site: SiteDoc }> {
  const { userId } = principalOf(req);
  const { organizationId, siteId } = parseInput(siteParams, req.params, 'params');
  return loadSiteAccess(ctx, userId, organizationId, siteId);
}

/** Same, for writes: 403 unless the caller administers the organization's sites. */
export async function adminSiteOfRequest(ctx: PublishingContext, req: Request, action: string) {
  const found = await siteOfRequest(ctx, req);
  requireSiteAdmin(found.access, action);
  return found;
}

/**
 * For DELETEs under a site: the organization must be visible (404) and the caller an
 * admin (403); a site that does not exist (any more) is undefined, and the DELETE a 204.
 */
export async function siteForDelete(ctx: PublishingContext, req: Request, action: string): Promise<SiteDoc | undefined> {
  const { userId } = principalOf(req);
  const { organizationId, siteId } = parseInput(siteParams, req.params, 'params');
  const access = await loadOrgAccess(ctx, userId, organizationId);
  requireSiteAdmin(access, action);
  return (await ctx.models.Site.findOne({ _id: siteId, organizationId }).lean()) ?? undefined;
}
