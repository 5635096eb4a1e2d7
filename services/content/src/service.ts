import { createEventBus } from '@quire/async';
import { startBackendService, type RunningService } from '@quire/http';
import { createServiceClients, type BackendConfig, type Logger } from '@quire/runtime';
import { modelsOf, registerModels } from './db/models';
import type { ContentContext } from './domain/context';
import { contentRouter } from './http/routes';

/** Starts the content service (REST + gRPC) against its own database. */
export function startContent(config: BackendConfig, options: { handleSignals?: boolean; logger?: Logger } = {}): Promise<RunningService<BackendConfig>> {
  let context: ContentContext | undefined;
  return startBackendService({
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
    onStop: async () => {
      await context?.events.close();
    },
    ...options,
  });
}
