import { startBackendService, type RunningService } from '@quire/http';
import { insights } from '@quire/proto';
import type { Logger } from '@quire/runtime';
import type { InsightsConfig } from './config';
import type { InsightsContext } from './context';
import { conversationRoutes, startConversationWorker } from './conversations';
import { insightsGrpc } from './grpc/server';
import { modelsOf, registerModels } from './models';
import { startTranslationWorker, translationRoutes } from './translations';

/**
 * Starts the insights service against its own database: conversations turned into issues and
 * clusters, and translations of spaces, each processed by its queue's worker.
 */
export function startInsights(
  config: InsightsConfig,
  options: { handleSignals?: boolean; logger?: Logger; background?: boolean } = {},
): Promise<RunningService<InsightsConfig, InsightsContext>> {
  return startBackendService({
    name: 'insights',
    config,
    models: registerModels,
    context: (deps): InsightsContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: (ctx) => [...conversationRoutes(ctx), ...translationRoutes(ctx)],
    grpc: (server, ctx) => server.add(insights.InsightsServiceDefinition, insightsGrpc(ctx)),
    background: async (ctx) => {
      if (options.background === false) return;
      const stopConversations = await startConversationWorker(ctx);
      const stopTranslations = await startTranslationWorker(ctx);
      return async () => {
        await stopTranslations();
        await stopConversations();
      };
    },
    handleSignals: options.handleSignals,
    logger: options.logger,
  });
}
