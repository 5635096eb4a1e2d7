import type { z } from 'zod';
import { httpError, keysetPage, type KeysetPage } from '@quire/http';
import { findByIds } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { conversationKey } from './ingest';
import type { ClusterDoc, ConversationDoc, IssueDoc } from './models';
import type { listClustersQuery, listConversationsQuery, listIssuesQuery } from './schemas';

/** Reads of the conversations module: keyset pages on indexed (filter, sort) pairs, and single objects. */

/** A page of the organization's clusters, in the order asked. */
export function listClusters(ctx: InsightsContext, organizationId: string, query: z.output<typeof listClustersQuery>): Promise<KeysetPage<ClusterDoc>> {
  return keysetPage(ctx.models.IssuesCluster, {
    filter: { organizationId },
    sortField: query.orderBy,
    order: query.order,
    limit: query.limit,
    page: query.page,
  });
}

/** A page of the organization's conversations, newest first, of one source if asked. */
export function listConversations(
  ctx: InsightsContext,
  organizationId: string,
  query: z.output<typeof listConversationsQuery>,
): Promise<KeysetPage<ConversationDoc>> {
  const filter = query.source ? { organizationId, source: query.source } : { organizationId };
  return keysetPage(ctx.models.Conversation, { filter, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
}

/** A page of the organization's issues, newest first, of one cluster and/or one conversation if asked. */
export function listIssues(ctx: InsightsContext, organizationId: string, query: z.output<typeof listIssuesQuery>): Promise<KeysetPage<IssueDoc>> {
  const filter = {
    organizationId,
    ...(query.cluster ? { clusterId: query.cluster } : {}),
    ...(query.conversation ? { conversationId: query.conversation } : {}),
  };
  return keysetPage(ctx.models.ConversationIssue, { filter, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
}

/** The conversations of these issues, by key. */
export async function conversationsOf(ctx: InsightsContext, issues: readonly IssueDoc[]): Promise<Map<string, ConversationDoc>> {
  const found = await findByIds(
    ctx.models.Conversation,
    issues.map((issue) => issue.conversationKey),
  );
  return new Map(found.map((doc) => [doc._id, doc]));
}

/** The conversation with this (ingested) id in the organization, or 404. */
export async function loadConversation(ctx: InsightsContext, organizationId: string, id: string): Promise<ConversationDoc> {
  const doc = await ctx.models.Conversation.findById(conversationKey(organizationId, id)).lean<ConversationDoc>();
  if (!doc || doc.organizationId !== organizationId) throw httpError.notFound('Conversation');
  return doc;
}

/** The issue of the organization with its conversation, or 404. */
export async function loadIssue(ctx: InsightsContext, organizationId: string, issueId: string): Promise<{ issue: IssueDoc; conversation: ConversationDoc }> {
  const issue = await ctx.models.ConversationIssue.findOne({ _id: issueId, organizationId }).lean<IssueDoc>();
  if (!issue) throw httpError.notFound('Issue');
  const conversation = await ctx.models.Conversation.findById(issue.conversationKey).lean<ConversationDoc>();
  if (!conversation) throw httpError.notFound('Issue');
  return { issue, conversation };
}

/** The clusters with these ids (unknown ones left out). */
export function clustersByIds(ctx: InsightsContext, ids: readonly string[]): Promise<ClusterDoc[]> {
  return findByIds(ctx.models.IssuesCluster, ids, { projection: { _id: 1, organizationId: 1, label: 1, updatedAt: 1 } });
}
