import { httpError, loadOrgAccess, type OrgAccess } from '@quire/http';
import { reaches, roleAtLeast } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { PublishingContext } from './context';

/** The caller's standing in an organization (404 for outsiders, guests and other tokens' scopes): the shared lookup. */
export { loadOrgAccess, type OrgAccess };

export interface SitePermissions {
  view: boolean;
  access: boolean;
  edit: boolean;
  create: boolean;
  admin: boolean;
  installIntegration: boolean;
  viewAdaptiveSchema: boolean;
  editAdaptiveSchema: boolean;
}

/** Site permissions (OpenAPI Site.permissions), from the organization role (design.md §4). */
export function sitePermissions(access: OrgAccess): SitePermissions {
  const admin = roleAtLeast(access.role, 'admin');
  return {
    view: true,
    access: true,
    // Editing the content of the site's spaces is content's business, by role.
    edit: roleAtLeast(access.role, 'edit'),
    // OpenAPI: "publish content, and manage the site's content structure": here only admins may.
    create: admin,
    admin,
    installIntegration: admin,
    viewAdaptiveSchema: true,
    editAdaptiveSchema: admin,
  };
}

/** 403 unless the caller administers the organization's sites (every site write needs it). */
export function requireSiteAdmin(access: OrgAccess, action: string): void {
  if (!roleAtLeast(access.role, 'admin')) throw httpError.forbidden(`Only organization admins can ${action}`);
}

/**
 * Whether the caller may see the site at all: members of its organization may, except an
 * integration's installation, which sees only the sites its installation covers.
 */
export function seesSite(access: OrgAccess, siteId: string): boolean {
  return reaches(access.installationReach, 'sites', siteId);
}

/** The site if it belongs to the organization and the caller sees it (seesSite); 404 otherwise. */
export async function loadSite(ctx: PublishingContext, access: OrgAccess, siteId: string): Promise<SiteDoc> {
  if (!seesSite(access, siteId)) throw httpError.notFound('Site');
  const site = await ctx.models.Site.findOne({ _id: siteId, organizationId: access.organizationId }).lean();
  if (!site) throw httpError.notFound('Site');
  return site;
}

/** Org access plus the site, for every route under /sites/{siteId}. */
export async function loadSiteAccess(ctx: PublishingContext, userId: string, organizationId: string, siteId: string) {
  const access = await loadOrgAccess(ctx, userId, organizationId);
  const site = await loadSite(ctx, access, siteId);
  return { access, site };
}
