import { z } from 'zod';
import { timestamp, url } from './common';

/*
 * spec "Conversation, issue, cluster": support or chat conversations ingested into an
 * organization, the issues (problems, unanswered questions) found in them, and the clusters
 * grouping the issues about the same thing across conversations (GitBook's Conversation,
 * ConversationInput, ConversationIssue, ConversationsIssuesCluster).
 */

/** How many weekly counts a cluster's pulse holds: the past 3 months, the current week last. */
export const WEEKLY_PULSE_WEEKS = 13;

/** Limits of an ingested conversation (GitBook publishes none; these keep one document small). */
export const CONVERSATION_LIMITS = {
  id: 256,
  subject: 512,
  parts: 500,
  body: 50_000,
  attributes: 50,
  attributeKey: 100,
  attributeValue: 1_000,
  url: 2048,
  batch: 100,
} as const;

const conversationPartFields = {
  type: z.literal('message'),
  /** Who wrote it: the end user, or the team (a human or an assistant) answering them. */
  role: z.enum(['user', 'team-member', 'assistant']),
  body: z.string().min(1).max(CONVERSATION_LIMITS.body),
};

/** GitBook ConversationPartMessage: one message of the conversation, as ingested. */
export const conversationPart = z.object(conversationPartFields).meta({ id: 'ConversationPartMessage' });
/** The same, as answered (a schema of its own: the API document describes requests and answers apart). */
export const storedConversationPart = z.object(conversationPartFields);

/** Free-form string attributes of the conversation in its source system. */
export const conversationAttributes = z
  .record(z.string().min(1).max(CONVERSATION_LIMITS.attributeKey), z.string().max(CONVERSATION_LIMITS.attributeValue))
  .refine((value) => Object.keys(value).length <= CONVERSATION_LIMITS.attributes, `must have at most ${CONVERSATION_LIMITS.attributes} keys`);

/** GitBook ConversationInput: a conversation as an integration or an API client sends it. */
export const conversationInput = z
  .object({
    /** The conversation's id in its source system: ingesting the same id again updates it. */
    id: z.string().min(1).max(CONVERSATION_LIMITS.id),
    metadata: z
      .object({
        /** Where the conversation can be seen in its source (an http(s) address). */
        url: z
          .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
          .max(CONVERSATION_LIMITS.url)
          .optional(),
        attributes: conversationAttributes.default({}),
        createdAt: z.iso.datetime({ offset: true }).optional(),
      })
      .default({ attributes: {} }),
    subject: z.string().max(CONVERSATION_LIMITS.subject).optional(),
    parts: z.array(conversationPart).min(1).max(CONVERSATION_LIMITS.parts),
  })
  .meta({ id: 'ConversationInput' });

/** spec "Conversation" (GitBook Conversation). */
export const conversation = z
  .object({
    object: z.literal('conversation'),
    id: z.string(),
    subject: z.string().optional(),
    createdAt: timestamp,
    /** When its issues were last extracted and clustered; absent while it waits for that. */
    processedAt: timestamp.optional(),
    /** Where it came from: its `source` attribute, else its address's host, else `api`. */
    source: z.string(),
    urls: z.object({ location: url, source: url.optional() }),
  })
  .meta({ id: 'Conversation' });

/** spec "Conversation detail": the conversation with its messages and metadata. */
export const conversationDetail = z
  .object({
    conversation,
    parts: z.array(storedConversationPart),
    metadata: z.object({ url: url.optional(), attributes: z.record(z.string(), z.string()), createdAt: timestamp }),
  })
  .meta({ id: 'ConversationWithParts' });

/** spec "Issue" (GitBook ConversationIssue): one problem or question raised in a conversation. */
export const conversationIssue = z
  .object({
    object: z.literal('conversation-issue'),
    id: z.string(),
    title: z.string(),
    summary: z.string(),
    createdAt: timestamp,
    ingestedAt: timestamp,
    /** The conversation's id (the one it was ingested with). */
    conversation: z.string(),
    /** The cluster it belongs to. */
    cluster: z.string(),
    urls: z.object({ location: url }),
  })
  .meta({ id: 'ConversationIssue' });

/** spec "Issue list item": the issue and its conversation. */
export const conversationIssueItem = z.object({ issue: conversationIssue, conversation });

/** spec "Cluster" (GitBook ConversationsIssuesCluster): issues about the same thing across conversations. */
export const issuesCluster = z
  .object({
    object: z.literal('issues-cluster'),
    id: z.string(),
    label: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    /** An icon name (e.g. `gear`). */
    icon: z.string().max(50),
    summary: z.string(),
    /** Issues per week for the past 3 months, oldest first, the current week last. */
    weeklyPulse: z.array(z.number().int().min(0)).length(WEEKLY_PULSE_WEEKS),
    /** Conversations per source. */
    sources: z.record(z.string(), z.number().int().min(0)),
    stats: z.object({ issues: z.number().int().min(0), conversations: z.number().int().min(0) }),
    urls: z.object({ location: url }),
  })
  .meta({ id: 'ConversationsIssuesCluster' });

/** GitBook's orders of the cluster list (`orderBy`). */
export const clusterOrderBy = z.enum(['updatedAt', 'createdAt', 'issues', 'conversations']);
