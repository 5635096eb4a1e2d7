import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { EVENTS, SITE_VIEWS_PER_EVENT, type EventInput } from '@quire/async';
import type { publishing } from '@quire/proto';
import { CLIENT_ADDRESS_HEADER, remembered, type SharedView } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { getSites } from '../domain/sites';
import type { Location, SiteView } from './site-view';
import type { PublishedPage } from './space-content';

/*
 * The view events of published sites (GitBook's site_view, EVENTS.siteViewed): published here
 * only, one view per page a visitor reads (a 200 or a 304, whether publishing answered it or the
 * gateway did, which records its own with RecordSiteViews). Views are gathered per site and told
 * a few at a time — at most SITE_VIEWS_PER_EVENT per event, at most FLUSH_MS after the first
 * of them — so that a busy site costs the event stream, and every consumer reading it, one entry
 * per batch rather than one per request. Every view is in one event: counts stay exact. A
 * process that stops tells what it gathered (flushSiteViews); one that crashes loses at most
 * FLUSH_MS of views.
 */

type View = EventInput<typeof EVENTS.siteViewed>['views'][number];

/** Longest a view waits to be told. */
const FLUSH_MS = 200;

interface Gathered {
  organizationId: string;
  siteId: string;
  views: View[];
}

interface Gatherer {
  sites: Map<string, Gathered>;
  timer?: NodeJS.Timeout;
}

const gatherers = new WeakMap<PublishingContext, Gatherer>();

function gathererOf(ctx: PublishingContext): Gatherer {
  let gatherer = gatherers.get(ctx);
  if (!gatherer) {
    gatherer = { sites: new Map() };
    gatherers.set(ctx, gatherer);
  }
  return gatherer;
}

function publish(ctx: PublishingContext, { organizationId, siteId, views }: Gathered): Promise<void> {
  return ctx.events
    .publish(EVENTS.siteViewed, { organizationId, siteId, views }, { organizationId })
    .then(() => undefined)
    .catch((error: unknown) => ctx.logger.warn({ err: (error as Error).message, siteId, views: views.length }, 'site views not announced'));
}

/** Tells every view gathered so far. */
export async function flushSiteViews(ctx: PublishingContext): Promise<void> {
  const gatherer = gathererOf(ctx);
  clearTimeout(gatherer.timer);
  gatherer.timer = undefined;
  const batches = [...gatherer.sites.values()];
  gatherer.sites.clear();
  await Promise.all(batches.map((batch) => publish(ctx, batch)));
}

/** The origin of a site's base address, parsed once per base (a few per site). */
const originOf = remembered(10_000, (base) => new URL(base).origin);

/** A visitor's anonymous id on a site (a digest of the site, their address and user agent), made once per visitor while they come back. */
const anonymousIdOf = remembered(10_000, (visitor) => createHash('sha256').update(visitor).digest('base64url').slice(0, 22));

/**
 * Who did something on a site and where, as views and page feedback tell it: the address the
 * visitor asked for (`url`, on the site's origin), their referrer, and GitBook's EventVisitor
 * (never their cookies).
 */
export function visitOf(req: Request, view: SiteView): Pick<View, 'url' | 'referrer' | 'visitor'> {
  // The address the gateway resolved (its trusted proxies applied); the connection's is the gateway's own.
  const ip = req.get(CLIENT_ADDRESS_HEADER) ?? req.ip ?? '';
  const referrer = req.get('referer');
  return {
    url: pageUrlOf(req, view),
    ...(referrer ? { referrer } : {}),
    visitor: visitorOf(view.site._id, ip, req.get('user-agent') ?? '', req.get('accept-language') ?? ''),
  };
}

/** The address a visitor asked for, on the site's origin. */
const pageUrlOf = (req: Request, view: SiteView): string => `${originOf(view.address.base)}${req.originalUrl.replace(/^\/hosted\/[^/]+/, '')}`;

/** GitBook's EventVisitor; its language is the first one of `acceptLanguage` (the header as sent). */
function visitorOf(siteId: string, ip: string, userAgent: string, acceptLanguage: string): View['visitor'] {
  const language = acceptLanguage.split(',')[0];
  const anonymousId = anonymousIdOf(`${siteId}\n${ip}\n${userAgent}`);
  return { anonymousId, userAgent, ip, cookies: {}, ...(language ? { language } : {}) };
}

/** What a view of this page is, for a revisit the gateway answers itself (published/shared-answer). */
export function viewOfPage(req: Request, view: SiteView, location: Location, page: PublishedPage): SharedView {
  const { _id: siteId, organizationId } = view.site;
  return { organizationId, siteId, siteSpaceId: location.siteSpace._id, spaceId: location.siteSpace.spaceId, pageId: page.id, url: pageUrlOf(req, view) };
}

/** A page view for installed integrations (GitBook's site_view); never delays or fails the page. */
export function announceView(ctx: PublishingContext, req: Request, view: SiteView, location: Location, page: PublishedPage): void {
  gather(ctx, view.site, { siteSpaceId: location.siteSpace._id, spaceId: location.siteSpace.spaceId, pageId: page.id, ...visitOf(req, view) });
}

/**
 * Views the gateway answered (RecordSiteViews), told as publishing's own: those of a site that
 * is not there, or that name another organization than their site's, are left out. The number recorded.
 */
export async function recordSiteViews(ctx: PublishingContext, views: publishing.SiteView[]): Promise<number> {
  const sites = new Map((await getSites(ctx, [...new Set(views.map((view) => view.siteId))])).map((site) => [site._id, site]));
  let recorded = 0;
  for (const { organizationId, siteId, siteSpaceId, spaceId, pageId, url, referrer, ip, userAgent, acceptLanguage } of views) {
    const site = sites.get(siteId);
    if (!site || site.organizationId !== organizationId || !siteSpaceId || !spaceId || !pageId || !url) continue;
    gather(ctx, site, {
      siteSpaceId,
      spaceId,
      pageId,
      url,
      ...(referrer ? { referrer } : {}),
      visitor: visitorOf(siteId, ip, userAgent, acceptLanguage),
    });
    recorded++;
  }
  return recorded;
}

/** Adds a view to its site's next event. */
function gather(ctx: PublishingContext, site: Pick<SiteDoc, '_id' | 'organizationId'>, seen: View): void {
  const gatherer = gathererOf(ctx);
  const { _id: siteId, organizationId } = site;
  let gathered = gatherer.sites.get(siteId);
  if (!gathered) {
    gathered = { organizationId, siteId, views: [] };
    gatherer.sites.set(siteId, gathered);
  }
  gathered.views.push(seen);
  if (gathered.views.length >= SITE_VIEWS_PER_EVENT) {
    gatherer.sites.delete(siteId);
    void publish(ctx, gathered);
  }
  if (!gatherer.timer && gatherer.sites.size) {
    gatherer.timer = setTimeout(() => void flushSiteViews(ctx), FLUSH_MS);
    gatherer.timer.unref();
  }
}

/**
 * A visitor's rating of a page for installed integrations (GitBook's page_feedback): told at once,
 * and the visitor thanked only once it is on the stream (a failure is the visitor's 503).
 */
export async function announceFeedback(
  ctx: PublishingContext,
  req: Request,
  view: SiteView,
  location: Pick<Location, 'siteSpace'>,
  page: { id: string; path: string },
  rating: 'bad' | 'ok' | 'good',
): Promise<void> {
  const { _id: siteId, organizationId } = view.site;
  const { siteSpace } = location;
  // The address rated is the page's (`path`, on the site), not the form's; who came from where to it, the form does not know.
  const { visitor } = visitOf(req, view);
  const url = `${originOf(view.address.base)}${page.path}`;
  await ctx.events.publish(
    EVENTS.pageFeedback,
    { organizationId, siteId, siteSpaceId: siteSpace._id, spaceId: siteSpace.spaceId, pageId: page.id, rating, url, visitor },
    { organizationId },
  );
}
