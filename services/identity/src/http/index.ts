import type { Route } from '@quire/http';
import type { IdentityContext } from '../domain/context';
import { memberRoutes } from './member-routes';
import { organizationRoutes } from './organization-routes';
import { samlRoutes } from './saml-routes';
import { teamRoutes } from './team-routes';

/** Every REST route of the identity service, as data (the router and the API document are made from it). */
export function identityRoutes(ctx: IdentityContext): Route[] {
  return [...organizationRoutes(ctx), ...memberRoutes(ctx), ...teamRoutes(ctx), ...samlRoutes(ctx)];
}
