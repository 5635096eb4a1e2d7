import { content } from '@quire/proto';
import { startBackendService, type RunningService } from '@quire/http';
import type { BackendConfig, Logger } from '@quire/runtime';
import type { ContentConfig } from './config';
import { modelsOf, registerModels } from './db/models';
import type { ContentContext } from './domain/context';
import { closeSpacePurgeQueue, startSpacePurgeWorker } from './domain/space-lifecycle';
import { startGitWorker } from './domain/git/worker';
import { subscribeSearchWarmup } from './domain/search-events';
import { subscribeStructureEvents } from './domain/structure-events';
import { contentGrpc } from './grpc/server';
import { contentRouter } from './http/routes';

/** Starts the content service (REST + gRPC) against its own database, with its jobs and event consumers. */
export function startContent(
  config: BackendConfig & Partial<Pick<ContentConfig, 'SPACE_RETENTION_MS'>>,
  options: { handleSignals?: boolean; logger?: Logger } = {},
): Promise<RunningService<BackendConfig, ContentContext>> {
  return startBackendService({
    name: 'content',
    config,
    models: registerModels,
    context: (deps): ContentContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: (app, ctx) => app.use(contentRouter(ctx)),
    grpc: (server, ctx) => server.add(content.ContentServiceDefinition, contentGrpc(ctx)),
    background: async (ctx) => {
      startSpacePurgeWorker(ctx);
      const stopGitWorker = startGitWorker(ctx);
      const subscription = await subscribeStructureEvents(ctx);
      const searchWarmup = await subscribeSearchWarmup(ctx);
      return async () => {
        await searchWarmup.stop();
        await subscription.stop();
        await stopGitWorker();
        await closeSpacePurgeQueue(ctx);
      };
    },
    ...options,
  });
}
