import { startBackendService, type Route, type RunningService } from '@quire/http';
import { insights } from '@quire/proto';
import type { Logger } from '@quire/runtime';
import type { InsightsConfig, InsightsContext } from './kernel';
import { conversationRoutes, startConversationWorker } from './conversations';
import { insightsGrpc } from './grpc/server';
import { modelsOf, registerModels } from './models';
import { startTranslationWorker, translationRoutes } from './translations';

/** Every REST route of the insights service, as data (the router and the API document are made from it). */
export function insightsRoutes(ctx: InsightsContext): Route[] {
  return [...conversationRoutes(ctx), ...translationRoutes(ctx)];
}

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
    routes: insightsRoutes,
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
