import type { Principal } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import { loadOrgAccess, loadSiteAccess, requireSiteAdmin, type OrgAccess } from '../domain/access';
import type { PublishingContext } from '../domain/context';
import { withSiteLock, withSiteLockIfExists } from '../domain/locks';
import { findSite } from '../domain/sites';

/** The path parameters every /sites/{siteId}/… route has. */
export interface SitePath {
  organizationId: string;
  siteId: string;
}

/** The caller's access and the site of a /sites/{siteId}/… request (404 for either missing). */
export async function siteOfRequest(ctx: PublishingContext, caller: Principal, path: SitePath): Promise<{ access: OrgAccess; site: SiteDoc }> {
  return loadSiteAccess(ctx, caller.userId, path.organizationId, path.siteId);
}

/**
 * For DELETEs under a site: the organization must be visible (404) and the caller an
 * admin (403); a site that does not exist (any more) is undefined, and the DELETE a 204.
 */
async function siteForDelete(ctx: PublishingContext, caller: Principal, path: SitePath, action: string): Promise<SiteDoc | undefined> {
  const access = await loadOrgAccess(ctx, caller.userId, path.organizationId);
  requireSiteAdmin(access, action);
  return findSite(ctx, path.organizationId, path.siteId);
}

/**
 * A write under /sites/{siteId}: 404 unless the caller sees the site, 403 unless they
 * administer the organization's sites; then `work` runs holding the site's lock with the site
 * as it is by then (domain/locks), so whatever it checks and writes is done before a twin of
 * the request starts.
 */
export async function writeSiteOfRequest<T>(
  ctx: PublishingContext,
  caller: Principal,
  path: SitePath,
  action: string,
  work: (found: { access: OrgAccess; site: SiteDoc }) => Promise<T>,
): Promise<T> {
  const { access, site } = await siteOfRequest(ctx, caller, path);
  requireSiteAdmin(access, action);
  return withSiteLock(ctx, site, (fresh) => work({ access, site: fresh }));
}

/** A DELETE under a site (see siteForDelete), run holding the site's lock; nothing to do once the site is gone. */
export async function deleteUnderSite(
  ctx: PublishingContext,
  caller: Principal,
  path: SitePath,
  action: string,
  remove: (site: SiteDoc) => Promise<unknown>,
): Promise<void> {
  const site = await siteForDelete(ctx, caller, path, action);
  if (site) await withSiteLockIfExists(ctx, site, remove);
}
