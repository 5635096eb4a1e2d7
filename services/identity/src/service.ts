import { createEventBus } from '@quire/async';
import { startBackendService, type RunningService } from '@quire/http';
import { identity } from '@quire/proto';
import { createServiceClients, type BackendConfig, type Logger } from '@quire/runtime';
import { modelsOf, registerModels } from './db/models';
import type { IdentityContext } from './domain/context';
import { backfillMemberSearchFields } from './domain/members';
import { identityGrpc } from './grpc/server';
import { identityRouter } from './http/routes';

/** Starts the identity service (REST + gRPC) against its own database. */
export async function startIdentity(config: BackendConfig, options: { handleSignals?: boolean; logger?: Logger } = {}): Promise<RunningService<BackendConfig>> {
  let context: IdentityContext | undefined;
  const running = await startBackendService({
    name: 'identity',
    config,
    models: registerModels,
    context: (deps): IdentityContext =>
      (context = {
        models: modelsOf(deps.db),
        redis: deps.redis,
        config: deps.config,
        logger: deps.logger,
        clients: createServiceClients(deps.config, 'identity'),
        events: createEventBus({ redisUrl: deps.config.REDIS_URL, prefix: deps.config.REDIS_PREFIX, logger: deps.logger }),
      }),
    routes: (app, ctx) => app.use(identityRouter(ctx)),
    grpc: (server, ctx) => server.add(identity.IdentityServiceDefinition, identityGrpc(ctx)),
    onStop: async () => {
      await context?.events?.close();
    },
    ...options,
  });
  // Memberships written before the search copies existed get them once, in the background.
  if (context) {
    const ctx = context;
    void backfillMemberSearchFields(ctx).catch((error) => ctx.logger.warn({ err: error }, 'member search backfill failed'));
  }
  return running;
}
