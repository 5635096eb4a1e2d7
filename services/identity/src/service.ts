import { startBackendService, type RunningService } from '@quire/http';
import { identity } from '@quire/proto';
import type { BackendConfig, Logger } from '@quire/runtime';
import { modelsOf, registerModels } from './db/models';
import type { IdentityContext } from './domain/context';
import { identityGrpc } from './grpc/server';
import { identityRouter } from './http/routes';

/** Starts the identity service (REST + gRPC) against its own database. */
export function startIdentity(config: BackendConfig, options: { handleSignals?: boolean; logger?: Logger } = {}): Promise<RunningService<BackendConfig>> {
  const contextOf = (deps: { db: Parameters<typeof modelsOf>[0] } & Omit<IdentityContext, 'models'>): IdentityContext => ({
    models: modelsOf(deps.db),
    redis: deps.redis,
    config: deps.config,
    logger: deps.logger,
  });
  return startBackendService({
    name: 'identity',
    config,
    models: registerModels,
    routes: (app, deps) => app.use(identityRouter(contextOf(deps))),
    grpc: (server, deps) => server.add(identity.IdentityServiceDefinition, identityGrpc(contextOf(deps))),
    ...options,
  });
}
