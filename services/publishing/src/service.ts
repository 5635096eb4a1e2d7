import { createEventBus, type EventSubscription } from '@quire/async';
import { startBackendService, type RunningService } from '@quire/http';
import { publishing } from '@quire/proto';
import { createLogger, createServiceClients, type Logger } from '@quire/runtime';
import type { PublishingConfig } from './config';
import { modelsOf, registerModels } from './db/models';
import type { PublishingContext } from './domain/context';
import { subscribeToSpaceEvents } from './domain/space-events';
import { publishingGrpc } from './grpc/server';
import { siteRouter } from './http/site-routes';
import { structureRouter } from './http/structure-routes';

/** Starts the publishing service (REST + gRPC + space events) against its own database. */
export async function startPublishing(
  config: PublishingConfig,
  options: { handleSignals?: boolean; logger?: Logger; subscribeToEvents?: boolean } = {},
): Promise<RunningService<PublishingConfig> & { context: PublishingContext }> {
  let context: PublishingContext | undefined;
  let subscription: EventSubscription | undefined;
  let bus: ReturnType<typeof createEventBus> | undefined;
  const running = await startBackendService({
    name: 'publishing',
    config,
    models: registerModels,
    context: (deps): PublishingContext =>
      (context = {
        models: modelsOf(deps.db),
        redis: deps.redis,
        config: deps.config,
        logger: deps.logger,
        clients: createServiceClients(deps.config, 'publishing'),
      }),
    routes: (app, ctx) => {
      app.use(siteRouter(ctx));
      app.use(structureRouter(ctx));
    },
    grpc: (server, ctx) => server.add(publishing.PublishingServiceDefinition, publishingGrpc(ctx)),
    onStop: async () => {
      await subscription?.stop();
      await bus?.close();
    },
    handleSignals: options.handleSignals,
    logger: options.logger ?? createLogger('publishing', config.LOG_LEVEL),
  });
  if (options.subscribeToEvents !== false) {
    bus = createEventBus({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX, logger: running.deps.logger });
    subscription = await subscribeToSpaceEvents(context!, bus);
  }
  return { ...running, context: context! };
}
