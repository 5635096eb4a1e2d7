import type { Request, Response } from 'express';
import type { SiteRedirectDestination, SiteRedirectDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { addressKey, wildcardSuffix, withSuffix } from '../domain/site-addresses';
import { cachingHeaders, notFound } from './answers';
import { VariantAddresses } from './pages';
import { sectionPath, shownVariants, variantPath, type SiteView } from './site-view';
import { publishedContent } from './space-content';

/*
 * An address of a site that names no page: before the 404, the redirects the site's admins set
 * (domain/redirects), then the addresses the site has published (address-history.ts) — an
 * address whose page still is in the site, elsewhere now, sends the visitor straight to where it
 * is (one hop). Only asked when a page is not found: pages that are found never come here.
 */

interface Found {
  status: number;
  location: string;
}

/** A live redirect of the site from `address`: its own, else the wildcard with the longest prefix that matches it. */
async function adminRedirect(ctx: PublishingContext, siteId: string, address: string): Promise<{ redirect: SiteRedirectDoc; suffix: string } | undefined> {
  const exact = await ctx.models.SiteRedirect.findOne({ siteId, draft: false, key: address }).lean();
  if (exact) return { redirect: exact, suffix: '' };
  const wildcards = await ctx.models.SiteRedirect.find({ siteId, draft: false, wildcard: true }).lean();
  let best: { redirect: SiteRedirectDoc; suffix: string } | undefined;
  for (const redirect of wildcards) {
    const suffix = redirect.prefix ? wildcardSuffix(redirect.prefix, address) : undefined;
    if (suffix !== undefined && (!best || (redirect.prefix ?? '').length > (best.redirect.prefix ?? '').length)) best = { redirect, suffix };
  }
  return best;
}

/** Where a page of one of the site's spaces is now, for this visitor: its variant first, else any variant showing its space. */
async function pageNow(
  ctx: PublishingContext,
  view: SiteView,
  target: { siteSpaceId: string; spaceId?: string; pageId: string },
  format: 'html' | 'md',
): Promise<string | undefined> {
  const variants = shownVariants(view);
  const candidates = [
    ...variants.filter((v) => v.siteSpace._id === target.siteSpaceId),
    ...variants.filter((v) => v.siteSpace._id !== target.siteSpaceId && target.spaceId && v.siteSpace.spaceId === target.spaceId),
  ];
  for (const { section, siteSpace } of candidates) {
    const space = view.spaces.get(siteSpace.spaceId);
    const content = space && (await publishedContent(ctx, space));
    const page = content?.byId.get(target.pageId);
    if (!content || !page) continue;
    const addresses = new VariantAddresses(view, { section, siteSpace, pagePath: '' }, content);
    return format === 'md' ? addresses.markdown(page) : addresses.page(page);
  }
  return undefined;
}

/** The address of a redirect's destination as this visitor sees the site (undefined: not there for them). */
async function destinationOf(ctx: PublishingContext, view: SiteView, destination: SiteRedirectDestination): Promise<string | undefined> {
  switch (destination.kind) {
    case 'external':
      return destination.url;
    case 'site-section': {
      const section = view.sections.find((s) => s._id === destination.siteSectionId);
      return section && sectionPath(view, section);
    }
    case 'site-space': {
      const found = shownVariants(view).find((v) => v.siteSpace._id === destination.siteSpaceId);
      return found && variantPath(view, found.section, found.siteSpace);
    }
    case 'site-page':
      return pageNow(ctx, view, destination, 'html');
  }
}

/** What a site-relative path (its base path, then below) keeps of the request's query. */
function queryOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at >= 0 ? req.originalUrl.slice(at) : '';
}

async function redirectFor(
  ctx: PublishingContext,
  req: Request,
  view: SiteView,
  asked: string[],
  pagePath: string[],
  format: 'html' | 'md',
): Promise<Found | undefined> {
  const here = `${view.address.basePath}${asked.map(encodeURIComponent).join('/')}`;
  const admin = await adminRedirect(ctx, view.site._id, addressKey(asked));
  if (admin) {
    const { redirect, suffix } = admin;
    const destination = await destinationOf(ctx, view, redirect.destination);
    // GitBook: a permanent redirect is a 308 for public live traffic, a 307 elsewhere.
    const status = redirect.permanent ? (view.site.visibility === 'public' ? 308 : 307) : 302;
    if (destination) {
      const location = redirect.captureWildcard ? withSuffix(destination, suffix) : destination;
      const external = redirect.destination.kind === 'external';
      if (location !== here) return { status, location: external ? location : `${location}${queryOf(req)}` };
    }
  }
  const known = await ctx.models.SiteAddress.findOne({ siteId: view.site._id, address: addressKey(pagePath) }).lean();
  const now = known && (await pageNow(ctx, view, known, format));
  if (now && now !== here) return { status: 301, location: `${now}${queryOf(req)}` };
  return undefined;
}

/**
 * Answers an address of the site where no page is: a redirect when one of the site's admins set
 * one or the address once named a page the site still shows, else the 404 page. `asked`: the
 * segments below the site's root; `pagePath`: the page they name (without `.md` for markdown).
 */
export async function redirectOrNotFound(
  ctx: PublishingContext,
  req: Request,
  res: Response,
  view: SiteView,
  asked: string[],
  pagePath: string[],
  format: 'html' | 'md',
): Promise<void> {
  const found = await redirectFor(ctx, req, view, asked, pagePath, format);
  if (!found) return notFound(req, res, view);
  res
    .status(found.status)
    .set({ ...cachingHeaders(view), location: found.location })
    .end();
}
