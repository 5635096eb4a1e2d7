import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { EVENTS } from '@quire/async';
import type { PublishingContext } from '../domain/context';
import type { Location, SiteView } from './site-view';
import type { PublishedPage } from './space-content';

/*
 * The view event of published sites (GitBook's site_view, EVENTS.siteViewed): published here
 * only, once per page a visitor reads (a 200 or a 304).
 */

/** A page view for installed integrations (GitBook's site_view); never delays or fails the page. */
export function announceView(ctx: PublishingContext, req: Request, view: SiteView, location: Location, page: PublishedPage): void {
  const ip = req.ip ?? '';
  const userAgent = req.get('user-agent') ?? '';
  const anonymousId = createHash('sha256').update(`${view.site._id}\n${ip}\n${userAgent}`).digest('base64url').slice(0, 22);
  const referrer = req.get('referer');
  void ctx.events
    .publish(
      EVENTS.siteViewed,
      {
        organizationId: view.site.organizationId,
        siteId: view.site._id,
        siteSpaceId: location.siteSpace._id,
        spaceId: location.siteSpace.spaceId,
        pageId: page.id,
        url: `${new URL(view.address.base).origin}${req.originalUrl.replace(/^\/hosted\/[^/]+/, '')}`,
        ...(referrer ? { referrer } : {}),
        visitor: { anonymousId, userAgent, ip, cookies: {}, ...(req.get('accept-language') ? { language: req.get('accept-language')?.split(',')[0] } : {}) },
      },
      { organizationId: view.site.organizationId },
    )
    .catch((error: unknown) => ctx.logger.warn({ err: (error as Error).message, siteId: view.site._id }, 'site view not announced'));
}
