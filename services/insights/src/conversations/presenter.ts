import type { z } from 'zod';
import type { conversation, conversationDetail, conversationIssue, issuesCluster } from '@quire/contract';
import { apiUrl } from '@quire/http';
import { attributesJson, type ClusterDoc, type ConversationDoc, type IssueDoc } from './models';
import { weeklyPulse } from './weekly';

/** The shapes the conversations routes answer with (spec "Conversation, issue, cluster"). */

export interface PresentOptions {
  /** The public base URL addresses are made under. */
  baseUrl: string;
  /** Now, for the weekly pulse. */
  now?: Date;
}

const orgPath = (organizationId: string) => `/v1/orgs/${encodeURIComponent(organizationId)}`;

/** A Conversation. */
export function presentConversation(doc: ConversationDoc, options: PresentOptions): z.input<typeof conversation> {
  return {
    object: 'conversation',
    id: doc.conversationId,
    ...(doc.subject ? { subject: doc.subject } : {}),
    createdAt: doc.createdAt.toISOString(),
    ...(doc.processedAt ? { processedAt: doc.processedAt.toISOString() } : {}),
    source: doc.source,
    urls: {
      location: apiUrl(options.baseUrl, `${orgPath(doc.organizationId)}/conversations/${encodeURIComponent(doc.conversationId)}`),
      ...(doc.url ? { source: doc.url } : {}),
    },
  };
}

/** The conversation detail: the conversation, its messages and its metadata. */
export function presentConversationDetail(doc: ConversationDoc, options: PresentOptions): z.input<typeof conversationDetail> {
  return {
    conversation: presentConversation(doc, options),
    parts: doc.parts.map(({ type, role, body }) => ({ type, role, body })),
    metadata: { ...(doc.url ? { url: doc.url } : {}), attributes: attributesJson.read(doc.attributes), createdAt: doc.createdAt.toISOString() },
  };
}

/** A ConversationIssue. */
export function presentIssue(doc: IssueDoc, options: PresentOptions): z.input<typeof conversationIssue> {
  return {
    object: 'conversation-issue',
    id: doc._id,
    title: doc.title,
    summary: doc.summary,
    createdAt: doc.createdAt.toISOString(),
    ingestedAt: doc.ingestedAt.toISOString(),
    conversation: doc.conversationId,
    cluster: doc.clusterId,
    urls: { location: apiUrl(options.baseUrl, `${orgPath(doc.organizationId)}/conversations-issues/${doc._id}`) },
  };
}

/** A cluster (its `location`: the list of its issues). */
export function presentCluster(doc: ClusterDoc, options: PresentOptions): z.input<typeof issuesCluster> {
  return {
    object: 'issues-cluster',
    id: doc._id,
    label: doc.label,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    icon: doc.icon,
    summary: doc.summary,
    weeklyPulse: weeklyPulse(doc.weeks, options.now),
    sources: Object.fromEntries(doc.sources.map(({ k, v }) => [k, v])),
    stats: { issues: doc.issues, conversations: doc.conversations },
    urls: { location: apiUrl(options.baseUrl, `${orgPath(doc.organizationId)}/conversations-issues?cluster=${doc._id}`) },
  };
}
