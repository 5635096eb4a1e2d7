import { readFile } from 'node:fs/promises';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { Body, revisionFileUrl, sendCached } from '@quire/http';
import { declareCache, encodeSharedAnswer, SHARED_ANSWER_HEADER, type LruCache } from '@quire/runtime';
import type { SiteSpaceDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { customizationOf, siteSpaceCustomizationOf } from '../domain/customization';
import type { SiteAddress } from './address';
import { listedPages, llmsFullTxt, llmsTxt, pageMarkdown, robotsTxt, sitemapXml, type LlmsSection } from './agents';
import { cachingHeaders, etagOf, notFound, sendText, textType } from './answers';
import { messageHtml, searchHtml, STYLESHEET, STYLESHEET_VERSION } from './html';
import { fontFile, settingsDigest, themeCss } from './look';
import { serveMcp } from './mcp';
import { OIDC_PATHS } from './oidc';
import { frameOf, VariantAddresses } from './pages';
import { redirectOrNotFound } from './redirects';
import { renderPage } from './render';
import { searchSite } from './search';
import { locate, shownVariants, type Location, type SiteView } from './site-view';
import { announceFeedback, announceView, viewOfPage } from './site-viewed';
import { publishedContent, type PublishedContent, type PublishedPage } from './space-content';

/*
 * The addresses below a published site's root, as data: what each one matches, who may read it
 * (its audience) and how it is answered. routes.ts finds the site, lets in the audience the
 * first matching path asks for, and hands it the answer.
 */

/** What an answer works with, by audience. */
interface Answering {
  ctx: PublishingContext;
  req: Request;
  res: Response;
}
interface OnSite extends Answering {
  address: SiteAddress;
}
interface ToVisitor extends OnSite {
  view: SiteView;
}

export type SitePath = {
  name: string;
  /** Whether it answers these segments below the site's root. */
  matches: (segments: string[]) => boolean;
} & (
  | {
      /** Anyone, whether or not a site is there (the stylesheet a 404 page uses). */
      audience: 'anyone';
      serve: (input: Answering) => Promise<void>;
    }
  | {
      /** Anyone, once the site is found (robots.txt tells every crawler what it may read). */
      audience: 'site';
      serve: (input: OnSite) => Promise<void>;
    }
  | {
      /** The visitors the site's audience lets in (share link, visitor token), with the view their claims give. */
      audience: 'visitors';
      /** Whether the site offers it at all (else a 404 in the site's frame). */
      offered?: (view: SiteView) => boolean;
      /**
       * Its clients are agents: it takes POST as well as GET (routes.ts), and a share key or visitor
       * token in the address admits each request, with no cookie or redirect (audience.ts).
       */
      forAgents?: true;
      /** It takes a form a page posts (routes.ts): a browser's, admitted as a page's visitor is. */
      postsForm?: true;
      serve: (input: ToVisitor) => Promise<void>;
    }
);

const fonts = new Map<string, Promise<Buffer>>();
/** A font file of ours (look.ts fontFile), read once; undefined for any other name. */
function fontData(name: string): Promise<Buffer> | undefined {
  let data = fonts.get(name);
  if (!data) {
    const file = fontFile(name);
    if (!file) return undefined;
    data = readFile(file);
    fonts.set(name, data);
  }
  return data;
}

/** Rendered pages by ETag (everything they show), with their gzip (ctx.caches.renderedPages). */
export const pathCaches = { renderedPages: declareCache<Body>(32) };

declare module '../domain/context' {
  interface PublishingCaches {
    renderedPages: LruCache<Body>;
  }
}

const stylesheet = new Body(STYLESHEET);
const STYLESHEET_TAG = etagOf(STYLESHEET);
const MAX_QUERY = 200;

/** The search box's query: trimmed, at most MAX_QUERY characters; anything but one string is no query. */
export const searchQuery = z.object({
  q: z
    .unknown()
    .optional()
    .transform((q) => (typeof q === 'string' ? q.trim().slice(0, MAX_QUERY) : '')),
});

const only =
  (...expected: string[]) =>
  (segments: string[]) =>
    segments.length === expected.length && expected.every((segment, i) => segments[i] === segment);

/** The published content of a variant's space, when the visitor sees that space. */
function variantContent(ctx: PublishingContext, view: SiteView, siteSpace: SiteSpaceDoc): Promise<PublishedContent | undefined> {
  const space = view.spaces.get(siteSpace.spaceId);
  return space ? publishedContent(ctx, space) : Promise.resolve(undefined);
}

/** The content of the other variants of the location's section (or the site root), by site space id. */
async function peerContents(ctx: PublishingContext, view: SiteView, location: Location): Promise<Map<string, PublishedContent>> {
  const variants = view.variants.get(location.section?._id ?? '') ?? [];
  if (variants.length < 2) return new Map();
  const others = variants.filter((siteSpace) => siteSpace._id !== location.siteSpace._id);
  const found = await Promise.all(others.map((siteSpace) => variantContent(ctx, view, siteSpace)));
  return new Map(others.flatMap((siteSpace, i) => (found[i] ? [[siteSpace._id, found[i]] as const] : [])));
}

/** Every variant the visitor sees, each with its addresses. */
async function everyVariant(ctx: PublishingContext, view: SiteView): Promise<Array<{ title: string; addresses: VariantAddresses }>> {
  const found = await Promise.all(
    shownVariants(view).map(async ({ section, siteSpace }) => {
      const content = await variantContent(ctx, view, siteSpace);
      if (!content) return [];
      const addresses = new VariantAddresses(view, { section, siteSpace, pagePath: '' }, content);
      const several = (view.variants.get(section?._id ?? '')?.length ?? 0) > 1;
      const spaceTitle = view.spaces.get(siteSpace.spaceId)?.title ?? siteSpace.path;
      return [{ title: [section?.title, several || !section ? spaceTitle : undefined].filter(Boolean).join(' — '), addresses }];
    }),
  );
  return found.flat();
}

/** The page's HTML: kept under its ETag (everything it shows), else rendered and kept. */
async function renderedPage(
  ctx: PublishingContext,
  view: SiteView,
  location: Location,
  variant: PublishedContent,
  page: PublishedPage,
  etag: string,
): Promise<Body> {
  const kept = ctx.caches.renderedPages.get(etag);
  if (kept) return kept;
  const body = new Body(renderPage(view, location, { variant, page, peers: await peerContents(ctx, view, location) }));
  ctx.caches.renderedPages.set(etag, body, body.weight);
  return body;
}

/**
 * A page of the site, as HTML or (`.md`) as markdown, under an ETag made of everything it shows
 * (the site's view and the page's path): a revisit of an unchanged page is a 304. Each HTML view
 * is announced.
 */
async function servePage({ ctx, req, res, view, address }: ToVisitor, format: 'html' | 'md'): Promise<void> {
  const { segments } = address;
  const path = format === 'md' ? [...segments.slice(0, -1), segments[segments.length - 1].slice(0, -'.md'.length)] : segments;
  const location = locate(view, path);
  if (!location) return redirectOrNotFound(ctx, req, res, view, segments, path, format);
  const variant = await variantContent(ctx, view, location.siteSpace);
  const page = variant && new VariantAddresses(view, location, variant).pageAt(location.pagePath);
  if (!variant || !page) return redirectOrNotFound(ctx, req, res, view, segments, path, format);
  const headers: Record<string, string> & { etag: string } = { etag: etagOf(view.version, format, path.join('/')), ...cachingHeaders(view) };
  // What every visitor gets alike: the gateway may answer its revisits itself (shared-answer), a view counted for each HTML one.
  if (view.sharedTags)
    res.set(SHARED_ANSWER_HEADER, encodeSharedAnswer({ tags: view.sharedTags, ...(format === 'html' ? { view: viewOfPage(req, view, location, page) } : {}) }));
  if (format === 'md') {
    await sendCached(req, res, { headers: { 'content-type': textType('text/markdown'), ...headers }, compressible: true, body: () => pageMarkdown(page) });
    return;
  }
  if (page.noRobotsIndex) headers['x-robots-tag'] ??= 'noindex';
  await sendCached(req, res, {
    headers: { 'content-type': textType('text/html'), ...headers },
    compressible: true,
    body: () => renderedPage(ctx, view, location, variant, page, headers.etag),
  });
  announceView(ctx, req, view, location, page);
}

/** A page's feedback form (html.ts pageHtml): the page, its variant and how helpful the visitor found it. */
const feedbackForm = z.object({ page: z.string().min(1).max(100), space: z.string().min(1).max(100), rating: z.enum(['bad', 'ok', 'good']) });
const formBody = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

/**
 * A visitor's rating of a page (the customization's `feedback`): told to integrations, then a
 * page thanking them with a link back. A page the visitor cannot see is a 404, as it is to read.
 */
async function serveFeedback({ ctx, req, res, view }: ToVisitor): Promise<void> {
  if (req.method !== 'POST' || !customizationOf(view.site).feedback.enabled) return notFound(req, res, view);
  await new Promise<void>((resolve, reject) => formBody(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
  const form = feedbackForm.safeParse(req.body);
  const frame = frameOf(view, { title: `Feedback | ${view.site.title}`, noIndex: true });
  if (!form.success) {
    const message = 'Choose how helpful the page was: good, ok or bad.';
    return sendText(req, res, 400, 'text/html', messageHtml(frame, 'Feedback not sent', message), { 'cache-control': 'no-store' });
  }
  const shown = shownVariants(view).find(({ siteSpace }) => siteSpace._id === form.data.space);
  const content = shown && (await variantContent(ctx, view, shown.siteSpace));
  const page = content?.byId.get(form.data.page);
  if (!shown || !content || !page || page.hidden) return notFound(req, res, view);
  const back = new VariantAddresses(view, { ...shown, pagePath: page.path }, content).page(page);
  await announceFeedback(ctx, req, view, shown, { id: page.id, path: back }, form.data.rating);
  return sendText(req, res, 200, 'text/html', messageHtml(frame, 'Thank you for your feedback', `Back to “${page.title}”`, back), {
    'cache-control': 'no-store',
  });
}

/** The addresses of a site, in the order they are tried: the first that matches answers. */
export const SITE_PATHS: SitePath[] = [
  {
    name: 'stylesheet',
    audience: 'anyone',
    matches: only('~', 'site.css'),
    serve: async ({ req, res }) => {
      // The pages ask for it with its digest (html.ts): that address is this stylesheet's for good; any other is revalidated.
      const current = req.query.v === STYLESHEET_VERSION;
      const cache = current ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate';
      const headers = { 'content-type': textType('text/css'), etag: STYLESHEET_TAG, 'cache-control': cache };
      await sendCached(req, res, { headers, compressible: true, body: () => stylesheet });
    },
  },
  {
    // The fonts a site's customization names (look.ts): files of their packages, the same for every site (for its visitors: nothing answers for a site one may not see).
    name: 'fonts',
    audience: 'visitors',
    matches: (segments) => segments.length === 3 && segments[0] === '~' && segments[1] === 'fonts',
    serve: async ({ req, res, address, view }) => {
      const name = address.segments[2];
      const data = await fontData(name);
      if (!data) return notFound(req, res, view);
      const etag = etagOf(name);
      res.set({ 'content-type': 'font/woff2', etag, 'cache-control': 'public, max-age=31536000, immutable' });
      if (req.get('if-none-match') === etag) res.status(304).end();
      else res.send(data);
    },
  },
  {
    // The theme stylesheet of the site's customization, or a site space's the visitor sees (`site` or its id), at an address that changes with it (look.ts).
    name: 'theme stylesheet',
    audience: 'visitors',
    matches: (segments) => segments.length === 4 && segments[0] === '~' && segments[1] === 'theme' && segments[3].endsWith('.css'),
    serve: async ({ req, res, address, view }) => {
      const [, , owner, file] = address.segments;
      const siteSpace = owner === 'site' ? undefined : shownVariants(view).find((shown) => shown.siteSpace._id === owner)?.siteSpace;
      if (owner !== 'site' && !siteSpace) return notFound(req, res, view);
      const settings = siteSpace ? siteSpaceCustomizationOf(address.site, siteSpace) : customizationOf(address.site);
      const digest = settingsDigest(settings);
      // An address of the settings now is theirs for good; an older one gets them too, but only until they change again.
      const cache = file === `${digest}.css` ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate';
      const headers = { 'content-type': textType('text/css'), etag: etagOf(digest, address.basePath), 'cache-control': cache };
      await sendCached(req, res, { headers, compressible: true, body: () => new Body(themeCss(settings, `${address.basePath}~/fonts/`)) });
    },
  },
  {
    name: 'robots.txt',
    audience: 'site',
    matches: only('robots.txt'),
    serve: ({ req, res, address }) =>
      sendText(req, res, 200, 'text/plain', robotsTxt({ site: address.site, address }), { 'cache-control': 'public, max-age=300' }),
  },
  {
    name: 'sitemap.xml',
    audience: 'visitors',
    matches: only('sitemap.xml'),
    offered: (view) => view.site.visibility === 'public',
    serve: async ({ ctx, req, res, view }) => {
      const urls = (await everyVariant(ctx, view)).flatMap(({ addresses }) => listedPages(addresses, 'robots').map((p) => p.url));
      return sendText(req, res, 200, 'application/xml', sitemapXml(urls), { 'cache-control': 'public, max-age=300' });
    },
  },
  ...(['llms.txt', 'llms-full.txt'] as const).map((name): SitePath => ({
    name,
    audience: 'visitors',
    matches: only(name),
    offered: (view) => view.site.agentsContext === 'included',
    serve: async ({ ctx, req, res, view }) => {
      const sections: LlmsSection[] = (await everyVariant(ctx, view)).map(({ title, addresses }) => ({
        title: title || view.site.title,
        pages: listedPages(addresses, 'agents'),
      }));
      return sendText(req, res, 200, 'text/plain', (name === 'llms.txt' ? llmsTxt : llmsFullTxt)(view, sections), cachingHeaders(view));
    },
  })),
  {
    name: 'search',
    audience: 'visitors',
    matches: only('~', 'search'),
    serve: async ({ ctx, req, res, view }) => {
      const { q } = searchQuery.parse(req.query);
      const results = q ? await searchSite(ctx, view, q) : [];
      const frame = frameOf(view, { title: q ? `Search: ${q} | ${view.site.title}` : `Search | ${view.site.title}`, noIndex: true, query: q });
      return sendText(req, res, 200, 'text/html', searchHtml(frame, q, results), { 'cache-control': 'private, no-cache' });
    },
  },
  {
    name: 'page feedback',
    audience: 'visitors',
    postsForm: true,
    matches: only('~', 'feedback'),
    serve: serveFeedback,
  },
  {
    name: 'files',
    audience: 'visitors',
    matches: (segments) => segments.length === 4 && segments[0] === '~' && segments[1] === 'files',
    // A file of a space the visitor sees: sent to its signed download address.
    serve: async ({ ctx, req, res, view, address }) => {
      const [, , spaceId, fileId] = address.segments;
      const shown = shownVariants(view).some(({ siteSpace }) => siteSpace.spaceId === spaceId);
      const space = shown ? view.spaces.get(spaceId) : undefined;
      const content = space && (await publishedContent(ctx, space));
      if (!space || !content?.files.has(fileId)) return notFound(req, res, view);
      res
        .status(302)
        .set({ location: revisionFileUrl(ctx.config, space.revisionId, fileId), 'cache-control': 'private, max-age=60' })
        .end();
    },
  },
  {
    // The site's Model Context Protocol endpoint (mcp.ts), for agents as llms.txt is.
    name: 'mcp',
    audience: 'visitors',
    forAgents: true,
    matches: only('~', 'mcp'),
    offered: (view) => view.site.agentsContext === 'included',
    serve: async ({ ctx, req, res, view }) => {
      const pages = (await everyVariant(ctx, view)).flatMap(({ addresses }) => listedPages(addresses, 'agents'));
      res.set('cache-control', 'no-store');
      return serveMcp(ctx, view, pages, req, res);
    },
  },
  ...OIDC_PATHS,
  {
    // The site's own addresses are under ~/: one that is none of the above is not a page either.
    name: 'other ~/ addresses',
    audience: 'visitors',
    matches: (segments) => segments[0] === '~',
    serve: ({ req, res, view }) => notFound(req, res, view),
  },
  {
    name: 'page as markdown',
    audience: 'visitors',
    matches: (segments) => {
      const last = segments[segments.length - 1] ?? '';
      return last.endsWith('.md') && last.length > '.md'.length;
    },
    offered: (view) => view.site.agentsContext === 'included',
    serve: (input) => servePage(input, 'md'),
  },
  {
    name: 'page',
    audience: 'visitors',
    matches: () => true,
    serve: (input) => servePage(input, 'html'),
  },
];

/** The path that answers `segments` (the page when no other does). */
export function pathOf(segments: string[]): SitePath {
  return SITE_PATHS.find((path) => path.matches(segments)) as SitePath;
}
