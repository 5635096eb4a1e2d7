import { conversationDetail, conversationIssueItem, conversation as conversationSchema, issuesCluster, list } from '@quire/contract';
import { createRateLimiter, listEnvelope, route, type Route } from '@quire/http';
import type { InsightsContext } from '../kernel';
import { conversationsAccess, ingestConversations, requireIngest } from './ingest';
import { presentCluster, presentConversation, presentConversationDetail, presentIssue, type PresentOptions } from './presenter';
import { conversationsOf, listClusters, listConversations, listIssues, loadConversation, loadIssue } from './queries';
import { conversationParams, ingestBody, issueParams, listClustersQuery, listConversationsQuery, listIssuesQuery, ORG_PATH, orgParams } from './schemas';

/**
 * The organization's conversations, their issues and the clusters of issues: members read,
 * admins and installations with the conversations:ingest scope ingest, anyone else gets 404.
 */
export function conversationRoutes(ctx: InsightsContext): Route[] {
  const options = (): PresentOptions => ({ baseUrl: ctx.config.PUBLIC_BASE_URL, now: new Date() });
  // Each organization's ingestion, counted in conversations (one organization's flood does not
  // fill the processing queue others wait in): 429 with Retry-After past it.
  const ingestAllowance = createRateLimiter({
    redis: ctx.redis,
    points: ctx.config.CONVERSATION_INGEST_PER_MINUTE,
    durationSeconds: 60,
    keyPrefix: 'conversation-ingest',
  });
  return [
    route({
      method: 'get',
      path: `${ORG_PATH}/conversations-clusters`,
      summary: "List the organization's clusters of conversation issues",
      response: list(issuesCluster),
      params: orgParams,
      query: listClustersQuery,
      handler: async ({ caller, params, query }) => {
        await conversationsAccess(ctx, caller, params.organizationId);
        const page = await listClusters(ctx, params.organizationId, query);
        const present = options();
        return listEnvelope(
          page.items.map((doc) => presentCluster(doc, present)),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'get',
      path: `${ORG_PATH}/conversations`,
      summary: "List the organization's ingested conversations, newest first",
      response: list(conversationSchema),
      params: orgParams,
      query: listConversationsQuery,
      handler: async ({ caller, params, query }) => {
        await conversationsAccess(ctx, caller, params.organizationId);
        const page = await listConversations(ctx, params.organizationId, query);
        const present = options();
        return listEnvelope(
          page.items.map((doc) => presentConversation(doc, present)),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'post',
      path: `${ORG_PATH}/conversations`,
      summary: 'Ingest a conversation, or a batch of them (processed in the background: `processedAt` is set when done)',
      params: orgParams,
      body: ingestBody,
      handler: async ({ caller, params, body, res }) => {
        requireIngest(await conversationsAccess(ctx, caller, params.organizationId));
        const conversations = Array.isArray(body) ? body : [body];
        // Counted once the caller may ingest: nobody else spends the organization's allowance.
        await ingestAllowance(params.organizationId, res, conversations.length);
        await ingestConversations(ctx, params.organizationId, conversations);
      },
    }),

    route({
      method: 'get',
      path: `${ORG_PATH}/conversations-issues`,
      summary: "List the organization's conversation issues, newest first, with their conversations",
      response: list(conversationIssueItem),
      params: orgParams,
      query: listIssuesQuery,
      handler: async ({ caller, params, query }) => {
        await conversationsAccess(ctx, caller, params.organizationId);
        const page = await listIssues(ctx, params.organizationId, query);
        const conversations = await conversationsOf(ctx, page.items);
        const present = options();
        const items = page.items.flatMap((issue) => {
          const conversation = conversations.get(issue.conversationKey);
          return conversation ? [{ issue: presentIssue(issue, present), conversation: presentConversation(conversation, present) }] : [];
        });
        return listEnvelope(items, page.count, page.next);
      },
    }),

    route({
      method: 'get',
      path: `${ORG_PATH}/conversations-issues/:issueId`,
      summary: 'Get a conversation issue with its conversation',
      response: conversationIssueItem,
      params: issueParams,
      handler: async ({ caller, params }) => {
        await conversationsAccess(ctx, caller, params.organizationId);
        const { issue, conversation } = await loadIssue(ctx, params.organizationId, params.issueId);
        const present = options();
        return { issue: presentIssue(issue, present), conversation: presentConversation(conversation, present) };
      },
    }),

    route({
      method: 'get',
      path: `${ORG_PATH}/conversations/:conversationId`,
      summary: 'Get an ingested conversation with its messages and metadata',
      response: conversationDetail,
      params: conversationParams,
      handler: async ({ caller, params }) => {
        await conversationsAccess(ctx, caller, params.organizationId);
        return presentConversationDetail(await loadConversation(ctx, params.organizationId, params.conversationId), options());
      },
    }),
  ];
}
