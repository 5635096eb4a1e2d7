/*
 * Conversations: ingestion of support and chat conversations, the issues extracted from them
 * and the clusters grouping the issues about the same thing across conversations. This file is
 * the module's only door.
 */
import type { insights } from '@quire/proto';
import { checkBatch } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { clustersByIds } from './queries';
import { startProcessingWorker } from './worker';

export { closeProcessingQueue } from './worker';

export {
  conversationModelDefinitions,
  type ConversationModels,
  type ClusterDoc,
  type ClusterTermsDoc,
  type ConversationDoc,
  type IssueDoc,
  type TermStatsDoc,
} from './models';
export { clusteringProblems, type ClusteringDocuments } from './consistency';
export { conversationRoutes } from './routes';
export { processConversation, issuesOf } from './process';
export { ingestConversations, conversationKey } from './ingest';
export { labelledConversations, KNOWN_PROBLEMS, type LabelledConversation } from './labelled-set';
export { measureClustering, type ClusteringQuality, type LabelledAssignment } from './quality';

/** Starts processing queued conversations in this process; what it returns stops it. */
export function startConversationWorker(ctx: InsightsContext): Promise<() => Promise<void>> {
  return startProcessingWorker(ctx);
}

/** gRPC BatchGetClusters: the clusters with these ids, unknown ids left out. */
export async function batchGetClusters(ctx: InsightsContext, request: insights.BatchGetClustersRequest): Promise<insights.BatchGetClustersResponse> {
  const ids = [...new Set(checkBatch(request.ids, 'ids'))].filter((id) => typeof id === 'string' && id.length > 0 && id.length <= 64);
  const clusters = await clustersByIds(ctx, ids);
  return {
    clusters: clusters.map((cluster) => ({ id: cluster._id, organizationId: cluster.organizationId, label: cluster.label, updateTime: cluster.updatedAt })),
  };
}
