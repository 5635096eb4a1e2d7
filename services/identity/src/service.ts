import { startBackendService, type RunningService } from '@quire/http';
import { identity } from '@quire/proto';
import type { BackendConfig, Logger } from '@quire/runtime';
import { modelsOf, registerModels } from './db/models';
import type { IdentityContext } from './domain/context';
import { identityGrpc } from './grpc/server';
import { identityRouter } from './http/routes';

/** Starts the identity service (REST + gRPC) against its own database. */
export function startIdentity(config: BackendConfig, options: { handleSignals?: boolean; logger?: Logger } = {}): Promise<RunningService<BackendConfig>> {
  return startBackendService({
    name: 'identity',
    config,
    models: registerModels,
    context: (deps): IdentityContext => ({ models: modelsOf(deps.db), redis: deps.redis, config: deps.config, logger: deps.logger }),
    routes: (app, ctx) => app.use(identityRouter(ctx)),
    grpc: (server, ctx) => server.add(identity.IdentityServiceDefinition, identityGrpc(ctx)),
    ...options,
  });
}
