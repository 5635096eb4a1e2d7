import { routerOf, type Route } from '@quire/http';
import type { Router } from 'express';
import type { PublishingContext } from '../domain/context';
import { siteRoutes } from './site-routes';
import { structureRoutes } from './structure-routes';

/** Every REST route of the publishing service, as data (the router and the API document are made from it). */
export function publishingRoutes(ctx: PublishingContext): Route[] {
  return [...siteRoutes(ctx), ...structureRoutes(ctx)];
}

export function publishingRouter(ctx: PublishingContext): Router {
  return routerOf(publishingRoutes(ctx));
}
