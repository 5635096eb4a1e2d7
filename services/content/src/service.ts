import { createEventBus, type EventSubscription } from '@quire/async';
import { content } from '@quire/proto';
import { startBackendService, type RunningService } from '@quire/http';
import { createServiceClients, type BackendConfig, type Logger } from '@quire/runtime';
import type { ContentConfig } from './config';
import { modelsOf, registerModels } from './db/models';
import type { ContentContext } from './domain/context';
import { closeSpacePurgeQueue, startSpacePurgeWorker } from './domain/space-lifecycle';
import { subscribeStructureEvents } from './domain/structure-events';
import { contentGrpc } from './grpc/server';
import { contentRouter } from './http/routes';

/** Starts the content service (REST + gRPC) against its own database, with its jobs and event consumers. */
export async function startContent(
  config: BackendConfig & Partial<Pick<ContentConfig, 'SPACE_RETENTION_MS'>>,
  options: { handleSignals?: boolean; logger?: Logger } = {},
): Promise<RunningService<BackendConfig>> {
  let context: ContentContext | undefined;
  let subscription: EventSubscription | undefined;
  const running = await startBackendService({
    name: 'content',
    config,
    models: registerModels,
    context: (deps): ContentContext =>
      (context = {
        models: modelsOf(deps.db),
        redis: deps.redis,
        config: deps.config,
        logger: deps.logger,
        clients: createServiceClients(deps.config, 'content'),
        events: createEventBus({ redisUrl: deps.config.REDIS_URL, prefix: deps.config.REDIS_PREFIX, logger: deps.logger }),
      }),
    routes: (app, ctx) => app.use(contentRouter(ctx)),
    grpc: (server, ctx) => server.add(content.ContentServiceDefinition, contentGrpc(ctx)),
    onStop: async () => {
      await subscription?.stop();
      if (context) await closeSpacePurgeQueue(context);
      await context?.events.close();
    },
    ...options,
  });
  if (context) {
    startSpacePurgeWorker(context);
    subscription = await subscribeStructureEvents(context);
  }
  return running;
}
