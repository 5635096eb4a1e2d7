import { apiUrl, httpError } from '@quire/http';
import { declareCache, type LruCache } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { siteVersion } from '../domain/site-version';
import { SITES_PATH } from '../domain/urls';

/*
 * Which published site a request is for, and where the site's pages live as the visitor
 * sees them. Three forms reach publishing (the gateway routes them): /sites/<org>/<site>/…
 * (no sites domain set), /hosted/<host>/<org>/<site>/… on the sites domain, and
 * /hosted/<host>/… on a site's own hostname. Only published sites answer; anything else is a 404.
 */

export interface SiteAddress {
  site: SiteDoc;
  /** The site's version (domain/site-version) as read before `site` was: what caches of it are keyed by. */
  version: string;
  /** Absolute address of the site's root as the visitor sees it, ending with '/'. */
  base: string;
  /** The path of `base` (what links and cookies are scoped to), ending with '/'. */
  basePath: string;
  /** The path below the root, decoded, split in segments (empty segments dropped). */
  segments: string[];
  /** The root was asked without its trailing slash: the visitor is sent to it. */
  needsSlash: boolean;
}

function segmentsOf(rest: string | string[] | undefined): string[] {
  const list = Array.isArray(rest) ? rest : rest ? rest.split('/') : [];
  return list.filter((segment) => segment !== '');
}

const hostnameOf = (host: string) => host.replace(/:\d+$/, '');

/*
 * Sites by address, kept in this process (ctx.caches): an address → the site's id, and the site
 * as read under its version. A request reads the version (one Redis GET) and uses the kept site
 * while it has not moved; every write of a site moves it. The version is read before the site,
 * so a write that lands in between only makes the next request read it again.
 */
export const addressCaches = {
  siteIdsByAddress: declareCache<string>(1),
  sitesById: declareCache<KnownSite>(10),
};

declare module '../domain/context' {
  interface PublishingCaches {
    siteIdsByAddress: LruCache<string>;
    sitesById: LruCache<KnownSite>;
  }
}

export interface KnownSite {
  site: SiteDoc;
  version: string;
}

/** Heap of an address's entry, and of a kept site, estimated (the default budgets hold about 5,000 of each). */
const ADDRESS_HEAP_BYTES = 200;
const SITE_HEAP_BYTES = 2048;

async function knownSite(ctx: PublishingContext, address: string, fits: (site: SiteDoc) => boolean, find: () => Promise<SiteDoc>): Promise<KnownSite> {
  const id = ctx.caches.siteIdsByAddress.get(address);
  if (id) {
    const version = await siteVersion(ctx, id);
    const kept = ctx.caches.sitesById.get(id);
    if (kept && kept.version === version && fits(kept.site)) return kept;
  }
  const found = await find();
  const version = await siteVersion(ctx, found._id);
  const site = await ctx.models.Site.findOne({ _id: found._id, published: true }).lean();
  if (!site || !fits(site)) throw httpError.notFound('Site');
  ctx.caches.siteIdsByAddress.set(address, site._id, ADDRESS_HEAP_BYTES);
  ctx.caches.sitesById.set(site._id, { site, version }, SITE_HEAP_BYTES);
  return { site, version };
}

/** A published site of an organization by its id or basename (the oldest when two share a basename). */
function siteInOrganization(ctx: PublishingContext, organizationId: string, key: string): Promise<{ site: SiteDoc; version: string }> {
  const fits = (site: SiteDoc) => site.published && site.organizationId === organizationId && (site._id === key || site.basename === key);
  return knownSite(ctx, `org:${organizationId}/${key}`, fits, () => findInOrganization(ctx, organizationId, key));
}

async function findInOrganization(ctx: PublishingContext, organizationId: string, key: string): Promise<SiteDoc> {
  // Two indexed lookups rather than one $or, which the engine would scan.
  const byId = await ctx.models.Site.findOne({ _id: key, organizationId, published: true }).lean();
  if (byId) return byId;
  const [byBasename] = await ctx.models.Site.find({ organizationId, basename: key, published: true }).sort({ createdAt: 1 }).limit(1).lean();
  if (!byBasename) throw httpError.notFound('Site');
  return byBasename;
}

/** The path of a site's root on the sites domain. */
const domainSitePath = (org: string, key: string) => `/${encodeURIComponent(org)}/${encodeURIComponent(key)}/`;

/** The path of a site's root at the gateway. */
export const gatewaySitePath = (org: string, key: string) => `${SITES_PATH}${domainSitePath(org, key)}`;

/** Where the root of the site an address on a host names would be, and what lies below it (known before looking the site up). */
export function hostedRoot(ctx: PublishingContext, host: string, rest: string[]): { basePath: string; below: string[] } {
  const segments = segmentsOf(rest);
  const sitesDomain = ctx.config.SITES_BASE_DOMAIN;
  if (sitesDomain && hostnameOf(host.toLowerCase()) === hostnameOf(sitesDomain) && segments.length >= 2) {
    return { basePath: domainSitePath(segments[0], segments[1]), below: segments.slice(2) };
  }
  return { basePath: '/', below: segments };
}

/** /sites/<org>/<site>/… (the gateway's own address). */
export async function addressOnGateway(
  ctx: PublishingContext,
  org: string,
  key: string,
  rest: string[] | undefined,
  originalPath: string,
): Promise<SiteAddress> {
  const { site, version } = await siteInOrganization(ctx, org, key);
  const basePath = gatewaySitePath(org, key);
  return {
    site,
    version,
    base: apiUrl(ctx.config.PUBLIC_BASE_URL, basePath),
    basePath,
    segments: segmentsOf(rest),
    needsSlash: !rest?.length && !originalPath.endsWith('/'),
  };
}

/** /hosted/<host>/…: the sites domain (then <org>/<site>/ follow) or a site's own hostname. */
export async function addressOnHost(ctx: PublishingContext, host: string, rest: string[] | undefined, originalPath: string): Promise<SiteAddress> {
  const hostname = hostnameOf(host.toLowerCase());
  const segments = segmentsOf(rest);
  const sitesDomain = ctx.config.SITES_BASE_DOMAIN;
  if (sitesDomain && hostname === hostnameOf(sitesDomain)) {
    const [org, key, ...below] = segments;
    if (!org || !key) throw httpError.notFound('Site');
    const { site, version } = await siteInOrganization(ctx, org, key);
    const basePath = domainSitePath(org, key);
    return { site, version, base: `https://${sitesDomain}${basePath}`, basePath, segments: below, needsSlash: !below.length && !originalPath.endsWith('/') };
  }
  const { site, version } = await knownSite(
    ctx,
    `host:${hostname}`,
    (s) => s.published && s.hostname === hostname,
    async () => {
      const [found] = await ctx.models.Site.find({ hostname, published: true }).sort({ createdAt: 1 }).limit(1).lean();
      if (!found) throw httpError.notFound('Site');
      return found;
    },
  );
  return { site, version, base: `https://${hostname}/`, basePath: '/', segments, needsSlash: false };
}
