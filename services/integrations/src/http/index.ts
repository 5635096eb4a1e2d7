import type { Route } from '@quire/http';
import type { IntegrationsContext } from '../domain/context';
import { eventRoutes } from './event-routes';
import { installationRoutes } from './installation-routes';
import { integrationRoutes } from './integration-routes';
import { publicEndpointRoutes } from './public-endpoint-routes';

/** Every REST route of the integrations service, as data (the router and the API document are made from it). */
export function integrationsRoutes(ctx: IntegrationsContext): Route[] {
  return [...integrationRoutes(ctx), ...installationRoutes(ctx), ...eventRoutes(ctx), ...publicEndpointRoutes(ctx)];
}
