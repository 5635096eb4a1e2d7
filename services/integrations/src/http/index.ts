import type { Route } from '@quire/http';
import type { IntegrationsContext } from '../domain/context';
import { integrationRoutes } from './integration-routes';

/** Every REST route of the integrations service, as data (the router and the API document are made from it). */
export function integrationsRoutes(ctx: IntegrationsContext): Route[] {
  return [...integrationRoutes(ctx)];
}
