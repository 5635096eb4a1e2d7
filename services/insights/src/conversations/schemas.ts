import { z } from 'zod';
import { CONVERSATION_LIMITS, clusterOrderBy, conversationInput } from '@quire/contract';
import { idSchema, listQuerySchema, orderSchema } from '@quire/http';

/** Request schemas of the conversations routes. */

export const ORG_PATH = '/v1/orgs/:organizationId';
export const orgParams = z.object({ organizationId: idSchema });
export const conversationParams = orgParams.extend({ conversationId: z.string().min(1).max(CONVERSATION_LIMITS.id) });
export const issueParams = orgParams.extend({ issueId: idSchema });

/** The first failure of the union's branch that fits the input's kind (a list: the batch form), naming its field. */
function ingestBodyError(issue: { input?: unknown; errors?: Array<Array<{ path: PropertyKey[]; message: string }>> }): string {
  const branch = issue.errors?.[Array.isArray(issue.input) ? 0 : 1]?.[0];
  if (!branch) return 'must be a conversation or a list of conversations';
  return branch.path.length > 0 ? `${branch.path.map(String).join('.')}: ${branch.message}` : branch.message;
}

/** GitBook's two body forms: one conversation, or a batch of them. */
export const ingestBody = z.union([z.array(conversationInput).min(1).max(CONVERSATION_LIMITS.batch), conversationInput], {
  error: (issue) => (issue.code === 'invalid_union' ? ingestBodyError(issue as Parameters<typeof ingestBodyError>[0]) : undefined),
});

export const listClustersQuery = listQuerySchema.extend({ order: orderSchema, orderBy: clusterOrderBy.default('updatedAt') });
export const listConversationsQuery = listQuerySchema.extend({ source: z.string().min(1).max(100).optional() });
export const listIssuesQuery = listQuerySchema.extend({ cluster: idSchema.optional(), conversation: z.string().min(1).max(CONVERSATION_LIMITS.id).optional() });
