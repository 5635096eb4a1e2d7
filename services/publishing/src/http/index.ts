import type { Route } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import { publishedSiteRoutes } from '../published';
import { customizationRoutes } from './customization-routes';
import { redirectRoutes } from './redirect-routes';
import { siteRoutes } from './site-routes';
import { structureRoutes } from './structure-routes';

/**
 * Every REST route of the publishing service, as data (the router and the API document are made
 * from it). The published sites' pages first: they are most of the requests, and the router
 * tries its routes in order (their paths, /sites/… and /hosted/…, share nothing with /v1/…).
 */
export function publishingRoutes(ctx: PublishingContext): Route[] {
  return [...publishedSiteRoutes(ctx), ...siteRoutes(ctx), ...structureRoutes(ctx), ...customizationRoutes(ctx), ...redirectRoutes(ctx)];
}
