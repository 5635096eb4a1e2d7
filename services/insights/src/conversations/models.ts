import { Schema, type Model } from 'mongoose';
import { z } from 'zod';
import { storedJson, type ModelDefinitions } from '@quire/runtime';

/*
 * What the conversations module stores. Free-form maps are never stored as keys (design.md §5:
 * a key may not hold `.` nor start with `$`): attributes and term counts are JSON text,
 * sources and weekly counts arrays of {k, v}. Counters of clusters and term statistics are
 * only written while holding the organization's clustering lock (see process.ts).
 */

export interface ConversationPartDoc {
  type: 'message';
  role: 'user' | 'team-member' | 'assistant';
  body: string;
}

/** An ingested conversation. Its `_id` derives from (organization, id): ingesting the same id again finds it. */
export interface ConversationDoc {
  _id: string;
  organizationId: string;
  /** The id it was ingested with (its source system's). */
  conversationId: string;
  subject?: string | null;
  source: string;
  url?: string | null;
  /** JSON text of the string attributes. */
  attributes: string;
  parts: ConversationPartDoc[];
  /** When the conversation happened (metadata.createdAt, else when first ingested). */
  createdAt: Date;
  /** When it was first ingested, and last. */
  ingestedAt: Date;
  updatedAt: Date;
  /** +1 on every ingestion: a job processes only the revision it was queued for. */
  revision: number;
  /** Set when the latest revision's issues are extracted and clustered. */
  processedAt?: Date | null;
  processedRevision: number;
  /** Waiting for processing (what the sweep looks for: an equality FerretDB serves from an index). */
  pending: boolean;
  /** The source its issues were counted under in their clusters (for a re-ingestion that changes it). */
  clusteredSource?: string | null;
}

/** An issue found in a conversation. */
export interface IssueDoc {
  _id: string;
  organizationId: string;
  /** The conversation's `_id`, and the id it was ingested with. */
  conversationKey: string;
  conversationId: string;
  clusterId: string;
  title: string;
  summary: string;
  /** Its content terms (lemmas, repeats kept): what was counted in its cluster and statistics. */
  terms: string[];
  /** The provider's embedding, when one was used. */
  embedding?: number[] | null;
  /** Its conversation's date, and week number (for the cluster's pulse). */
  createdAt: Date;
  week: number;
  ingestedAt: Date;
}

export interface CountDoc<K> {
  k: K;
  v: number;
}

/** A cluster of issues about the same thing, with running counts. */
export interface ClusterDoc {
  _id: string;
  organizationId: string;
  label: string;
  icon: string;
  summary: string;
  labelledAt: number;
  issues: number;
  conversations: number;
  sources: CountDoc<string>[];
  weeks: CountDoc<number>[];
  /** Its most distinctive terms with how many of its issues have each (what issues are compared with). */
  top: CountDoc<string>[];
  samples: string[];
  embeddingSum?: number[] | null;
  embedded: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A cluster's full term counts (JSON text of {term: issues}), apart: only the clusters a conversation touches read it. */
export interface ClusterTermsDoc {
  _id: string;
  organizationId: string;
  counts: string;
}

/**
 * The processing of a conversation whose writes (clusters, issues, conversation) may not all be
 * made yet: written with the statistics it counted, before the rest, and cleared once the rest
 * is written (see repair.ts).
 */
export interface ClusteringJournalDoc {
  /** The attempt's own id (a later attempt clears only its own journal). */
  attempt: string;
  conversationKey: string;
  /** The clusters it writes (new ones included). */
  touched: string[];
  /** JSON text of the terms of each issue it writes: what the statistics written with it count for the conversation. */
  added: string;
}

/** An organization's term statistics over its issues (for BM25 weights). */
export interface TermStatsDoc {
  /** The organization's id. */
  _id: string;
  docs: number;
  totalLength: number;
  /** JSON text of {term: issues containing it}. */
  df: string;
  /** The processing under way, or interrupted, since these statistics were written; null when none. */
  journal?: ClusteringJournalDoc | null;
  updatedAt: Date;
}

/*
 * The JSON text fields, read and written only through these. Each reads as empty when its text
 * is unusable: clustering goes on with what it can count, and the consistency check (consistency.ts)
 * reports what differs from the issues.
 */

/** A conversation's string attributes (`ConversationDoc.attributes`). */
export const attributesJson = storedJson('Conversation.attributes', z.record(z.string(), z.string()), { fallback: {} });

/** Term counts, {term: count} (`ClusterTermsDoc.counts`, `TermStatsDoc.df`): read as the map clustering keeps. */
export const termCountsJson = storedJson(
  'term counts',
  z.record(z.string(), z.number().positive()).transform((counts) => new Map(Object.entries(counts))),
  { fallback: {} },
);

/** The terms of each issue a journal's attempt writes (`ClusteringJournalDoc.added`). */
export const journalTermsJson = storedJson('ClusteringJournal.added', z.array(z.array(z.string())), { fallback: [] });

const countOf = (type: typeof String | typeof Number) => ({ type: [{ _id: false, k: type, v: Number }], default: [] });

const partSchema = new Schema<ConversationPartDoc>(
  { type: { type: String, required: true }, role: { type: String, required: true }, body: { type: String, required: true } },
  { _id: false },
);

const conversationSchema = new Schema<ConversationDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    conversationId: { type: String, required: true },
    subject: { type: String, default: null },
    source: { type: String, required: true },
    url: { type: String, default: null },
    attributes: { type: String, default: '{}' },
    parts: { type: [partSchema], default: [] },
    createdAt: { type: Date, required: true },
    ingestedAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    revision: { type: Number, default: 0 },
    processedAt: { type: Date, default: null },
    processedRevision: { type: Number, default: 0 },
    pending: { type: Boolean, default: true },
    clusteredSource: { type: String, default: null },
  },
  { versionKey: false },
);
conversationSchema.index({ organizationId: 1, conversationId: 1 }, { unique: true });
conversationSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
conversationSchema.index({ organizationId: 1, source: 1, createdAt: -1, _id: -1 });
// The sweep: conversations waiting for processing.
conversationSchema.index({ pending: 1, updatedAt: 1 });

const issueSchema = new Schema<IssueDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    conversationKey: { type: String, required: true },
    conversationId: { type: String, required: true },
    clusterId: { type: String, required: true },
    title: { type: String, required: true },
    summary: { type: String, required: true },
    terms: { type: [String], default: [] },
    embedding: { type: [Number], default: undefined },
    createdAt: { type: Date, required: true },
    week: { type: Number, required: true },
    ingestedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
issueSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
issueSchema.index({ organizationId: 1, clusterId: 1, createdAt: -1, _id: -1 });
issueSchema.index({ organizationId: 1, conversationId: 1, createdAt: -1, _id: -1 });
issueSchema.index({ conversationKey: 1 });

const clusterSchema = new Schema<ClusterDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    label: { type: String, required: true },
    icon: { type: String, required: true },
    summary: { type: String, default: '' },
    labelledAt: { type: Number, default: 0 },
    issues: { type: Number, default: 0 },
    conversations: { type: Number, default: 0 },
    sources: countOf(String),
    weeks: countOf(Number),
    top: countOf(String),
    samples: { type: [String], default: [] },
    embeddingSum: { type: [Number], default: undefined },
    embedded: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The cluster list's orders.
clusterSchema.index({ organizationId: 1, updatedAt: -1, _id: -1 });
clusterSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
clusterSchema.index({ organizationId: 1, issues: -1, _id: -1 });
clusterSchema.index({ organizationId: 1, conversations: -1, _id: -1 });

const clusterTermsSchema = new Schema<ClusterTermsDoc>(
  { _id: String, organizationId: { type: String, required: true }, counts: { type: String, default: '{}' } },
  { versionKey: false },
);
clusterTermsSchema.index({ organizationId: 1 });

const journalSchema = new Schema<ClusteringJournalDoc>(
  {
    attempt: { type: String, required: true },
    conversationKey: { type: String, required: true },
    touched: { type: [String], default: [] },
    added: { type: String, default: '[]' },
  },
  { _id: false },
);

const termStatsSchema = new Schema<TermStatsDoc>(
  {
    _id: String,
    docs: { type: Number, default: 0 },
    totalLength: { type: Number, default: 0 },
    df: { type: String, default: '{}' },
    journal: { type: journalSchema, default: null },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export type ConversationModels = {
  Conversation: Model<ConversationDoc>;
  ConversationIssue: Model<IssueDoc>;
  IssuesCluster: Model<ClusterDoc>;
  IssuesClusterTerms: Model<ClusterTermsDoc>;
  ConversationTermStats: Model<TermStatsDoc>;
};

export const conversationModelDefinitions: ModelDefinitions<ConversationModels> = {
  Conversation: [conversationSchema, 'conversations'],
  ConversationIssue: [issueSchema, 'conversation_issues'],
  IssuesCluster: [clusterSchema, 'issues_clusters'],
  IssuesClusterTerms: [clusterTermsSchema, 'issues_cluster_terms'],
  ConversationTermStats: [termStatsSchema, 'conversation_term_stats'],
};
