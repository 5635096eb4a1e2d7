import { content } from '@quire/proto';
import { startBackendService, type RunningService } from '@quire/http';
import type { BackendConfig, Logger } from '@quire/runtime';
import { subscribeGrantEvents } from './access';
import { purgeSpaceComments } from './comments';
import type { ContentConfig } from './config';
import { purgeSpaceGitSync, startGitWorker } from './git';
import { contentGrpc } from './grpc/server';
import { contentRoutes } from './http/routes';
import type { ContentContext } from './kernel';
import { modelsOf, registerModels } from './models';
import { openApiCaches, revisionCaches } from './revisions';
import { purgeSpaceSearchIndexes, searchIndexCaches, searchRankingCaches, subscribeSearchWarmup } from './search';
import { closeSpacePurgeQueue, purgeTrashedSpace, startSpacePurgeWorker, type FeatureDataPurge } from './structure';

/** Every module's caches (ContentCaches lists them: a missing one does not compile). */
const contentCaches = { ...revisionCaches, ...openApiCaches, ...searchIndexCaches, ...searchRankingCaches };

/** What the modules above structure keep of a space, removed when the space is purged. */
const purgeFeatureData: FeatureDataPurge = async (ctx, spaceId) => {
  await purgeSpaceComments(ctx, spaceId);
  await purgeSpaceSearchIndexes(ctx, spaceId);
  await purgeSpaceGitSync(ctx, spaceId);
};

/**
 * Removes a trashed space for good once its retention is over, with everything every module
 * keeps of it (the purge worker's job; idempotent). True when it purged the space.
 */
export function purgeSpace(ctx: ContentContext, spaceId: string): Promise<boolean> {
  return purgeTrashedSpace(ctx, spaceId, purgeFeatureData);
}

/** Starts the content service (REST + gRPC) against its own database, with its jobs and event consumers. */
export function startContent(
  config: BackendConfig & Partial<Pick<ContentConfig, 'SPACE_RETENTION_MS'>>,
  options: { handleSignals?: boolean; logger?: Logger } = {},
): Promise<RunningService<BackendConfig, ContentContext>> {
  return startBackendService({
    name: 'content',
    config,
    models: registerModels,
    caches: contentCaches,
    context: (deps): ContentContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: contentRoutes,
    grpc: (server, ctx) => server.add(content.ContentServiceDefinition, contentGrpc(ctx)),
    background: async (ctx) => {
      startSpacePurgeWorker(ctx, purgeFeatureData);
      const stopGitWorker = startGitWorker(ctx);
      const subscription = await subscribeGrantEvents(ctx);
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
