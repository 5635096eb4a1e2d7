import type { Request } from 'express';
import { parseInput, principalOf } from '@quire/http';
import type { SiteDoc } from '../db/models';
import { loadOrgAccess, loadSiteAccess, requireSiteAdmin, type OrgAccess } from '../domain/access';
import type { PublishingContext } from '../domain/context';
import { withSiteLock, withSiteLockIfExists } from '../domain/locks';
import { findSite } from '../domain/sites';
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
  return findSite(ctx, organizationId, siteId);
}

/**
 * A write under /sites/{siteId}: 404/403 as adminSiteOfRequest, then `work` runs holding
 * the site's lock with the site as it is by then (domain/locks), so whatever it checks and
 * writes is done before a twin of the request starts.
 */
export async function writeSiteOfRequest<T>(
  ctx: PublishingContext,
  req: Request,
  action: string,
  work: (found: { access: OrgAccess; site: SiteDoc }) => Promise<T>,
): Promise<T> {
  const { access, site } = await adminSiteOfRequest(ctx, req, action);
  return withSiteLock(ctx, site, (fresh) => work({ access, site: fresh }));
}

/** A DELETE under a site (see siteForDelete), run holding the site's lock; nothing to do once the site is gone. */
export async function deleteUnderSite(ctx: PublishingContext, req: Request, action: string, remove: (site: SiteDoc) => Promise<unknown>): Promise<void> {
  const site = await siteForDelete(ctx, req, action);
  if (site) await withSiteLockIfExists(ctx, site, remove);
}
