import { startBackendService, type RunningService } from '@quire/http';
import { identity } from '@quire/proto';
import type { BackendConfig, Logger } from '@quire/runtime';
import { modelsOf, registerModels } from './db/models';
import type { IdentityContext } from './domain/context';
import { backfillMemberSearchFields } from './domain/members';
import { scopeLegacySsoTokens } from './domain/tokens';
import { identityGrpc } from './grpc/server';
import { identityRoutes } from './http';

/** Starts the identity service (REST + gRPC) against its own database. */
export function startIdentity(
  config: BackendConfig,
  options: { handleSignals?: boolean; logger?: Logger } = {},
): Promise<RunningService<BackendConfig, IdentityContext>> {
  return startBackendService({
    name: 'identity',
    config,
    models: registerModels,
    context: (deps): IdentityContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: identityRoutes,
    grpc: (server, ctx) => server.add(identity.IdentityServiceDefinition, identityGrpc(ctx)),
    // Memberships written before the search copies existed get them once, without holding up the start.
    background: async (ctx) => {
      void backfillMemberSearchFields(ctx).catch((error) => ctx.logger.warn({ err: error }, 'member search backfill failed'));
      // At start: an SSO token issued before tokens carried a scope must not keep opening other organizations.
      await scopeLegacySsoTokens(ctx).catch((error) => ctx.logger.error({ err: error }, 'scoping legacy SSO tokens failed'));
    },
    ...options,
  });
}
