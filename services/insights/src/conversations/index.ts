/*
 * Conversations: ingestion, issues extracted from them and clusters of issues. (Stub: the
 * module's door; its implementation arrives with issue 14.)
 */
import type { Route } from '@quire/http';
import type { insights } from '@quire/proto';
import type { ModelDefinitions } from '@quire/runtime';
import type { InsightsContext } from '../context';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type ConversationModels = {};
export const conversationModelDefinitions: ModelDefinitions<ConversationModels> = {};
export function conversationRoutes(_ctx: InsightsContext): Route[] {
  return [];
}
export async function startConversationWorker(_ctx: InsightsContext): Promise<() => Promise<void>> {
  return async () => {};
}
export async function batchGetClusters(_ctx: InsightsContext, _request: insights.BatchGetClustersRequest): Promise<insights.BatchGetClustersResponse> {
  return { clusters: [] };
}
