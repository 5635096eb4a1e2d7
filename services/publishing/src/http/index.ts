import type { Route } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import { publishedSiteRoutes } from '../published';
import { customizationRoutes } from './customization-routes';
import { redirectRoutes } from './redirect-routes';
import { siteRoutes } from './site-routes';
import { structureRoutes } from './structure-routes';

/** Every REST route of the publishing service, as data (the router and the API document are made from it). */
export function publishingRoutes(ctx: PublishingContext): Route[] {
  return [...siteRoutes(ctx), ...structureRoutes(ctx), ...customizationRoutes(ctx), ...redirectRoutes(ctx), ...publishedSiteRoutes(ctx)];
}
