import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { EVENT_TYPES } from '@quire/async';
import { HttpError, revisionFileUrl, route, type Route } from '@quire/http';
import { filesBaseUrl, LruCache } from '@quire/runtime';
import type { PublishingContext } from '../domain/context';
import { addressOnGateway, addressOnHost, gatewaySitePath, hostedRoot, type SiteAddress } from './address';
import { listedPages, llmsTxt, pageMarkdown, robotsTxt, sitemapXml, type LlmsSection } from './agents';
import { admit, AudienceDecision, clearCookie } from './audience';
import { messageHtml, pageHtml, searchHtml, STYLESHEET } from './html';
import { bareFrame, frameOf, languageAlternates, pageContentOf, samePages, VariantAddresses } from './pages';
import { acceptsGzip, Body, gzipTag, matches } from './body';
import { searchSite } from './search';
import { locate, shownVariants, siteView, type Location, type SiteView } from './site-view';
import { publishedContent, type PublishedPage } from './space-content';

/*
 * Published sites as web pages (design.md §1: publishing serves them to their audience). The
 * gateway sends /sites/<org>/<site>/… and every request on a site's own host here. A page is
 * answered with an ETag made of everything it shows (the site's version, the revisions and
 * titles of its spaces, the visitor's view of the structure): a revisit of an unchanged page
 * is a 304, and a merge changes the ETag at once.
 */

const STYLESHEET_TAG = `"${createHash('sha256').update(STYLESHEET).digest('base64url').slice(0, 16)}"`;
/** Rendered pages by ETag, with their gzip (about 32 MB per process). */
const renderedPages = new LruCache<Body>(32 * 1024 * 1024);
const stylesheet = new Body(STYLESHEET);
const MAX_QUERY = 200;

/**
 * Headers of every answer of a site. Its images may come from the files origin (FILES_BASE_URL),
 * where `~/files` sends them: named in img-src, whatever its scheme.
 */
function securityHeaders(config: PublishingContext['config']): Record<string, string> {
  const files = new URL(filesBaseUrl(config)).origin;
  return {
    'content-security-policy': `default-src 'none'; img-src 'self' https: data: ${files}; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
}

function cachingHeaders(view: Pick<SiteView, 'site'>): Record<string, string> {
  const restricted = view.site.visibility === 'share-link' || view.site.visibility === 'visitor-auth';
  return {
    'cache-control': restricted ? 'private, no-cache' : 'public, max-age=0, must-revalidate',
    ...(restricted ? { vary: 'Cookie' } : {}),
    ...(view.site.visibility === 'public' ? {} : { 'x-robots-tag': 'noindex, nofollow' }),
  };
}

/**
 * Answers `body`, gzipped when the client takes it and it is long enough (with the gzip's own
 * ETag when `headers` has one).
 */
async function send(req: Request, res: Response, status: number, type: string, body: string | Body, headers: Record<string, string> = {}): Promise<void> {
  const content = typeof body === 'string' ? new Body(body) : body;
  res.status(status).set({ 'content-type': `${type}; charset=utf-8`, ...headers });
  if (!content.compressible) return void res.send(content.text);
  res.vary('Accept-Encoding');
  if (!acceptsGzip(req)) return void res.send(content.text);
  const gzipped = await content.gzip();
  res.set('content-encoding', 'gzip');
  if (headers.etag) res.set('etag', gzipTag(headers.etag));
  res.send(gzipped);
}

/** A 304 for a revisit whose If-None-Match names `headers.etag` or its gzip's. */
function notModified(req: Request, res: Response, headers: Record<string, string>): void {
  res.status(304).set({ ...headers, ...(acceptsGzip(req) && headers.etag ? { etag: gzipTag(headers.etag) } : {}) });
  res.vary('Accept-Encoding').end();
}

/**
 * A page that is not found, in the site's frame when the visitor may see the site; else a
 * bare one that names nothing, under the address asked (its stylesheet and search are there).
 */
function notFound(req: Request, res: Response, where: SiteView | string): Promise<void> {
  const frame =
    typeof where === 'string'
      ? bareFrame(where, 'Not found', 'Page not found')
      : frameOf(where, { title: `Page not found | ${where.site.title}`, noIndex: true });
  return send(req, res, 404, 'text/html', messageHtml(frame, 'Page not found', 'There is no page at this address.'), { 'cache-control': 'no-store' });
}

const etagOf = (...parts: string[]) => `"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`;

/** A page view for installed integrations (GitBook's site_view); never delays or fails the page. */
function announceView(ctx: PublishingContext, req: Request, view: SiteView, location: Location, page: PublishedPage): void {
  const ip = req.ip ?? '';
  const userAgent = req.get('user-agent') ?? '';
  const anonymousId = createHash('sha256').update(`${view.site._id}\n${ip}\n${userAgent}`).digest('base64url').slice(0, 22);
  const referrer = req.get('referer');
  void ctx.events
    .publish({
      type: EVENT_TYPES.siteViewed,
      organizationId: view.site.organizationId,
      payload: {
        organizationId: view.site.organizationId,
        siteId: view.site._id,
        siteSpaceId: location.siteSpace._id,
        spaceId: location.siteSpace.spaceId,
        pageId: page.id,
        url: `${new URL(view.address.base).origin}${req.originalUrl.replace(/^\/hosted\/[^/]+/, '')}`,
        ...(referrer ? { referrer } : {}),
        visitor: { anonymousId, userAgent, ip, cookies: {}, ...(req.get('accept-language') ? { language: req.get('accept-language')?.split(',')[0] } : {}) },
      },
    })
    .catch((error: unknown) => ctx.logger.warn({ err: (error as Error).message, siteId: view.site._id }, 'site view not announced'));
}

async function variantContent(ctx: PublishingContext, view: SiteView, location: Location) {
  const space = view.spaces.get(location.siteSpace.spaceId);
  if (!space) return undefined;
  return new VariantAddresses(view, location, await publishedContent(ctx, space));
}

/** The variants of the location's section (or the site root) with their addresses: `current`'s own for its variant. */
async function sectionVariants(ctx: PublishingContext, view: SiteView, location: Location, current: VariantAddresses): Promise<VariantAddresses[]> {
  const variants = view.variants.get(location.section?._id ?? '') ?? [];
  if (variants.length < 2) return [current];
  const found = await Promise.all(
    variants.map((siteSpace) =>
      siteSpace._id === location.siteSpace._id ? current : variantContent(ctx, view, { section: location.section, siteSpace, pagePath: '' }),
    ),
  );
  return found.filter((addresses): addresses is VariantAddresses => addresses !== undefined);
}

/** Every variant the visitor sees, each with its addresses. */
async function everyVariant(ctx: PublishingContext, view: SiteView): Promise<Array<{ title: string; addresses: VariantAddresses }>> {
  const found = await Promise.all(
    shownVariants(view).map(async ({ section, siteSpace }) => {
      const addresses = await variantContent(ctx, view, { section, siteSpace, pagePath: '' });
      if (!addresses) return [];
      const several = (view.variants.get(section?._id ?? '')?.length ?? 0) > 1;
      const spaceTitle = view.spaces.get(siteSpace.spaceId)?.title ?? siteSpace.path;
      return [{ title: [section?.title, several || !section ? spaceTitle : undefined].filter(Boolean).join(' — '), addresses }];
    }),
  );
  return found.flat();
}

async function servePage(ctx: PublishingContext, req: Request, res: Response, view: SiteView, segments: string[]): Promise<void> {
  const last = segments[segments.length - 1] ?? '';
  const asMarkdown = last.endsWith('.md') && last.length > 3;
  if (asMarkdown && view.site.agentsContext !== 'included') return notFound(req, res, view);
  const path = asMarkdown ? [...segments.slice(0, -1), last.slice(0, -3)] : segments;
  const location = locate(view, path);
  if (!location) return notFound(req, res, view);
  const etag = etagOf(view.version, asMarkdown ? 'md' : 'html', path.join('/'));
  const headers: Record<string, string> = { etag, ...cachingHeaders(view) };
  const addresses = await variantContent(ctx, view, location);
  const page = addresses?.pageAt(location.pagePath);
  if (!addresses || !page) return notFound(req, res, view);
  if (matches(req, etag)) {
    notModified(req, res, headers);
    if (!asMarkdown) announceView(ctx, req, view, location, page);
    return;
  }
  if (asMarkdown) return send(req, res, 200, 'text/markdown', pageMarkdown(page), headers);
  if (page.noRobotsIndex) headers['x-robots-tag'] ??= 'noindex';
  let html = renderedPages.get(etag);
  if (!html) {
    const origin = new URL(view.address.base).origin;
    const peers = samePages(location, await sectionVariants(ctx, view, location, addresses));
    const frame = frameOf(view, {
      title: page.title === view.site.title ? page.title : `${page.title} | ${view.site.title}`,
      lang: addresses.content.language,
      description: page.description,
      canonical: `${origin}${addresses.page(page)}`,
      noIndex: page.hidden || page.noRobotsIndex,
      location,
      peers,
      alternates: languageAlternates(view, location, peers, origin),
      markdown: view.site.agentsContext === 'included' ? addresses.markdown(page) : undefined,
    });
    html = new Body(pageHtml(frame, pageContentOf(addresses, page)));
    renderedPages.set(etag, html, html.weight);
  }
  await send(req, res, 200, 'text/html', html, headers);
  announceView(ctx, req, view, location, page);
}

/** ~/search, ~/files/<space>/<file> and ~/site.css. */
async function serveTool(ctx: PublishingContext, req: Request, res: Response, view: SiteView, tool: string[]): Promise<void> {
  const [name, ...rest] = tool;
  if (name === 'search' && !rest.length) {
    const raw = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, MAX_QUERY) : '';
    const results = raw ? await searchSite(ctx, view, raw) : [];
    const frame = frameOf(view, { title: raw ? `Search: ${raw} | ${view.site.title}` : `Search | ${view.site.title}`, noIndex: true, query: raw });
    return send(req, res, 200, 'text/html', searchHtml(frame, raw, results), { 'cache-control': 'private, no-cache' });
  }
  if (name === 'files' && rest.length === 2) {
    const [spaceId, fileId] = rest;
    const shown = shownVariants(view).some(({ siteSpace }) => siteSpace.spaceId === spaceId);
    const space = shown ? view.spaces.get(spaceId) : undefined;
    const content = space && (await publishedContent(ctx, space));
    if (!space || !content?.files.has(fileId)) return notFound(req, res, view);
    res
      .status(302)
      .set({ location: revisionFileUrl(ctx.config, space.revisionId, fileId), 'cache-control': 'private, max-age=60' })
      .end();
    return;
  }
  return notFound(req, res, view);
}

/** The stylesheet, at every site's `~/site.css` (also where no site is: a 404 page uses it). */
function serveStylesheet(req: Request, res: Response): Promise<void> {
  const headers = { etag: STYLESHEET_TAG, 'cache-control': 'public, max-age=86400' };
  if (matches(req, STYLESHEET_TAG)) {
    notModified(req, res, headers);
    return Promise.resolve();
  }
  return send(req, res, 200, 'text/css', stylesheet, headers);
}

const isStylesheet = (segments: string[]) => segments.length === 2 && segments[0] === '~' && segments[1] === 'site.css';

async function serveSite(ctx: PublishingContext, req: Request, res: Response, address: SiteAddress): Promise<void> {
  if (address.needsSlash) {
    const query = req.originalUrl.indexOf('?');
    res.redirect(301, `${address.basePath}${query >= 0 ? req.originalUrl.slice(query) : ''}`);
    return;
  }
  const { segments } = address;
  const single = segments.length === 1 ? segments[0] : undefined;
  if (single === 'robots.txt') return send(req, res, 200, 'text/plain', robotsTxt({ site: address.site, address }), { 'cache-control': 'public, max-age=300' });
  if (isStylesheet(segments)) return serveStylesheet(req, res);

  const admitted = await admit(ctx, address, req, res);
  if (admitted instanceof AudienceDecision) {
    if (admitted.clearCookie) clearCookie(res, address, admitted.clearCookie);
    if (admitted.status === 302)
      return void res
        .status(302)
        .set({ location: admitted.location ?? address.basePath, 'cache-control': 'no-store' })
        .end();
    if (admitted.status === 404) return notFound(req, res, address.basePath);
    const frame = bareFrame(address.basePath, address.site.title, `Sign in | ${address.site.title}`);
    const message = 'This site is only open to signed-in visitors. Open it from the link your sign-in gives you.';
    return send(req, res, 401, 'text/html', messageHtml(frame, 'Sign in to read this site', message), { 'cache-control': 'no-store' });
  }

  const view = await siteView(ctx, address, admitted.claims);
  if (single === 'sitemap.xml') {
    if (view.site.visibility !== 'public') return notFound(req, res, view);
    const urls = (await everyVariant(ctx, view)).flatMap(({ addresses }) => listedPages(addresses, 'robots').map((p) => p.url));
    return send(req, res, 200, 'application/xml', sitemapXml(urls), { 'cache-control': 'public, max-age=300' });
  }
  if (single === 'llms.txt') {
    if (view.site.agentsContext !== 'included') return notFound(req, res, view);
    const sections: LlmsSection[] = (await everyVariant(ctx, view)).map(({ title, addresses }) => ({
      title: title || view.site.title,
      pages: listedPages(addresses, 'agents'),
    }));
    return send(req, res, 200, 'text/plain', llmsTxt(view, sections), cachingHeaders(view));
  }
  if (segments[0] === '~') return serveTool(ctx, req, res, view, segments.slice(1));
  return servePage(ctx, req, res, view, segments);
}

/**
 * Runs `find` and `serveSite`, answering an HTML 404 for any site or page that is not there, every
 * answer with `headers` (securityHeaders).
 * `asked`: the site root the address names whether or not there is a site, and what lies below it.
 */
async function answer(
  ctx: PublishingContext,
  req: Request,
  res: Response,
  headers: Record<string, string>,
  asked: { basePath: string; below: string[] },
  find: () => Promise<SiteAddress>,
): Promise<void> {
  res.set(headers);
  if (isStylesheet(asked.below)) return serveStylesheet(req, res);
  let address: SiteAddress;
  try {
    address = await find();
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return notFound(req, res, asked.basePath);
    throw error;
  }
  await serveSite(ctx, req, res, address);
}

const rest = z.array(z.string()).optional();
const segment = z.string().min(1).max(200);

export function publishedSiteRoutes(ctx: PublishingContext): Route[] {
  const headers = securityHeaders(ctx.config);
  return [
    route({
      method: 'get',
      path: '/sites/:org/:site{/*rest}',
      summary: 'A page of a published site, at the gateway',
      access: 'public',
      website: true,
      produces: 'text/html',
      params: z.object({ org: segment, site: segment, rest }),
      handler: ({ params, req, res }) =>
        answer(ctx, req, res, headers, { basePath: gatewaySitePath(params.org, params.site), below: params.rest ?? [] }, () =>
          addressOnGateway(ctx, params.org, params.site, params.rest, req.path),
        ),
    }),
    route({
      method: 'get',
      path: '/hosted/:host{/*rest}',
      summary: "A page of a published site, on the site's own host or the sites domain",
      access: 'public',
      website: true,
      produces: 'text/html',
      params: z.object({ host: segment, rest }),
      handler: ({ params, req, res }) =>
        answer(ctx, req, res, headers, hostedRoot(ctx, params.host, params.rest ?? []), () => addressOnHost(ctx, params.host, params.rest, req.path)),
    }),
  ];
}
