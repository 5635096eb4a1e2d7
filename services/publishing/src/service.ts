import { startBackendService, type RunningService } from '@quire/http';
import { publishing } from '@quire/proto';
import { createLogger, type Logger } from '@quire/runtime';
import type { PublishingConfig } from './config';
import { modelsOf, registerModels } from './db/models';
import type { PublishingContext } from './domain/context';
import { subscribeToSpaceEvents } from './domain/space-events';
import { publishingGrpc } from './grpc/server';
import { publishingRoutes } from './http';
import { flushSiteViews, publishedSiteCaches, subscribeToAddressChanges } from './published';

/** Starts the publishing service (REST + gRPC + space events) against its own database. */
export function startPublishing(
  config: PublishingConfig,
  options: { handleSignals?: boolean; logger?: Logger; subscribeToEvents?: boolean } = {},
): Promise<RunningService<PublishingConfig, PublishingContext>> {
  return startBackendService({
    name: 'publishing',
    config,
    models: registerModels,
    caches: publishedSiteCaches,
    context: (deps): PublishingContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: publishingRoutes,
    grpc: (server, ctx) => server.add(publishing.PublishingServiceDefinition, publishingGrpc(ctx)),
    background: async (ctx) => {
      // Page views gathered and not told yet are told when the service stops (after its last request).
      if (options.subscribeToEvents === false) return () => flushSiteViews(ctx);
      const subscriptions = await Promise.all([subscribeToSpaceEvents(ctx), subscribeToAddressChanges(ctx)]);
      return async () => {
        await flushSiteViews(ctx);
        await Promise.all(subscriptions.map((subscription) => subscription.stop()));
      };
    },
    handleSignals: options.handleSignals,
    logger: options.logger ?? createLogger('publishing', config.LOG_LEVEL),
  });
}
