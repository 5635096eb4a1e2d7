import { newId, withRedisLock } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { clusterConversation, type ClusterableIssue, type ClusterState, type OrganizationClusters } from './clustering';
import { extractIssues } from './extract';
import { describeCluster } from './labels';
import { journalTermsJson, type ConversationDoc, type IssueDoc } from './models';
import { termsOf } from './nlp';
import { hasEmbeddings, hasProvider, providerDescription, providerEmbeddings, providerIssues } from './provider';
import { repairInterruptedProcessing } from './repair';
import { clearJournal, loadClusterCounts, loadOrganizationClusters, saveClusters, saveTermStats } from './store';
import { distinctiveTerms } from './vectors';
import { weekOf } from './weekly';

/*
 * Processing one conversation (a queued job): its issues are extracted (the provider's chat
 * model when configured, else winkNLP), then, holding the organization's clustering lock,
 * its previous issues are taken out of their clusters and the new ones clustered; the
 * organization's term statistics, the touched clusters and the issues are written, and
 * `processedAt` set, in an order that survives a crash between any two writes (repair.ts).
 * A job only processes the revision it was queued for: a conversation ingested again
 * meanwhile is left to the newer job.
 */

/** How long a job waits for the clustering lock (which lives CONVERSATION_CLUSTER_LOCK_MS past its holder's last renewal). */
const CLUSTER_LOCK_WAIT_MS = 60_000;
/** Terms a default label and summary are made of. */
const DESCRIBE_TERMS = 5;

export type ProcessOutcome = 'processed' | 'stale' | 'missing';

/** The Redis key serializing the clustering of one organization. */
export const clusterLockKey = (organizationId: string) => `insights:conversation-clusters:${organizationId}`;

/** The issues of a conversation, ready to cluster: the provider's when it answers, else the default pipeline's. */
/** An issue about to be clustered and stored. */
export type NewIssue = ClusterableIssue & { summary: string };

export async function issuesOf(ctx: InsightsContext, conversation: Pick<ConversationDoc, '_id' | 'subject' | 'parts'>): Promise<NewIssue[]> {
  const text = { subject: conversation.subject, parts: conversation.parts };
  let extracted: Array<{ title: string; summary: string; terms: string[] }> | undefined;
  if (hasProvider(ctx.config)) {
    try {
      extracted = (await providerIssues(ctx.config, text)).map((issue) => ({ ...issue, terms: termsOf(`${issue.title}. ${issue.summary}`) }));
    } catch (error) {
      ctx.logger.warn(
        { conversation: conversation._id, err: (error as Error).message },
        'issue extraction by the provider failed; using the built-in pipeline',
      );
    }
  }
  extracted ??= extractIssues(text);
  let embeddings: number[][] | undefined;
  if (hasEmbeddings(ctx.config) && extracted.length > 0) {
    try {
      embeddings = await providerEmbeddings(
        ctx.config,
        extracted.map((issue) => `${issue.title}. ${issue.summary}`),
      );
    } catch (error) {
      ctx.logger.warn({ conversation: conversation._id, err: (error as Error).message }, 'embeddings by the provider failed; clustering by terms');
    }
  }
  return extracted.map((issue, index) => ({ ...issue, week: 0, embedding: embeddings?.[index] ?? null }));
}

/** Whether a cluster's label is due: never made, or its issues doubled since (the provider words it then). */
const labelDue = (cluster: ClusterState) => cluster.labelledAt === 0 || cluster.issues >= cluster.labelledAt * 2;

/** Names the touched clusters: the default pipeline every time, the provider when a label is due. */
async function describeTouched(ctx: InsightsContext, org: OrganizationClusters, touched: ReadonlySet<string>): Promise<void> {
  for (const id of touched) {
    const cluster = org.clusters.get(id);
    if (!cluster || cluster.issues <= 0) continue;
    const distinctive = distinctiveTerms(org.stats, org.counts.get(id) ?? new Map(), cluster.issues, DESCRIBE_TERMS);
    if (!hasProvider(ctx.config)) {
      Object.assign(cluster, describeCluster(cluster, distinctive), { labelledAt: cluster.issues });
      continue;
    }
    if (!labelDue(cluster) && cluster.label) continue;
    try {
      Object.assign(cluster, await providerDescription(ctx.config, { titles: cluster.samples, terms: distinctive.map(({ k }) => k) }));
    } catch (error) {
      ctx.logger.warn({ cluster: id, err: (error as Error).message }, 'cluster labelling by the provider failed; using the built-in labels');
      Object.assign(cluster, describeCluster(cluster, distinctive));
    }
    cluster.labelledAt = cluster.issues;
  }
}

/** The writes of a processing, in their order (clusters and issues side by side). */
export type ProcessingWrite = 'repaired-cluster' | 'statistics' | 'cluster' | 'issues-delete' | 'issues-insert' | 'conversation' | 'journal-clear';

/**
 * Tests only: a crash between writes, simulated. The writes `skip` answers true for are not made
 * (nor the issues' insertion when their deletion is skipped), and the attempt stops with a
 * {@link SimulatedCrash} as soon as the writes under way with them are done, as a process that
 * died there would.
 */
export interface ProcessingFaults {
  skip(write: ProcessingWrite, clusterId?: string): boolean;
}

export class SimulatedCrash extends Error {
  constructor(readonly write: ProcessingWrite) {
    super(`simulated crash: the ${write} write was not made`);
    this.name = 'SimulatedCrash';
  }
}

/**
 * Replaces the conversation's issues and updates the clusters; the caller holds the
 * organization's lock. Crash-safe with single-document writes: the statistics and a journal
 * first, then the clusters and the issues, then the conversation, then the journal cleared; a
 * journal found open means an interrupted processing, repaired first (see repair.ts).
 */
async function clusterAndStore(ctx: InsightsContext, conversation: ConversationDoc, issues: NewIssue[], faults?: ProcessingFaults): Promise<void> {
  const { ConversationIssue, Conversation } = ctx.models;
  const { organizationId } = conversation;
  const now = new Date();
  const week = weekOf(conversation.createdAt);
  const added = issues.map((issue) => ({ ...issue, week }));
  let skipped: ProcessingWrite | undefined;
  const made = (write: ProcessingWrite, clusterId?: string) => {
    if (!faults?.skip(write, clusterId)) return true;
    skipped ??= write;
    return false;
  };
  const stopIfSkipped = () => {
    if (skipped) throw new SimulatedCrash(skipped);
  };

  const [{ org, journal }, removed] = await Promise.all([
    loadOrganizationClusters(ctx, organizationId),
    ConversationIssue.find({ conversationKey: conversation._id }).lean<IssueDoc[]>(),
  ]);
  if (journal) {
    // Written before the statistics, which close the journal: a crash meanwhile repairs again.
    const repaired = await repairInterruptedProcessing(ctx, organizationId, org, journal, now);
    await describeTouched(ctx, org, repaired);
    await saveClusters(
      ctx,
      organizationId,
      org,
      [...repaired].filter((id) => made('repaired-cluster', id)),
    );
    stopIfSkipped();
    ctx.logger.warn(
      { organization: organizationId, interrupted: journal.conversationKey, clusters: repaired.size },
      'repaired the clusters of an interrupted conversation processing',
    );
  }

  const outcome = await clusterConversation(
    org,
    { source: conversation.source, previousSource: conversation.clusteredSource ?? conversation.source, removed, added },
    { loadCounts: (id) => loadClusterCounts(ctx, id), newId, now },
  );
  await describeTouched(ctx, org, outcome.touched);

  // 1. The statistics, with the journal of this attempt (none when nothing changes: only a repair's statistics then).
  const changes = removed.length > 0 || added.length > 0;
  const attempt = newId();
  if (changes || journal) {
    const opened = changes
      ? { attempt, conversationKey: conversation._id, touched: [...outcome.touched], added: journalTermsJson.write(added.map((issue) => issue.terms)) }
      : null;
    if (made('statistics')) await saveTermStats(ctx, organizationId, org.stats, opened);
    stopIfSkipped();
  }
  // 2. The clusters and the issues, side by side.
  const replaceIssues = async () => {
    if (!made('issues-delete')) return;
    await ConversationIssue.deleteMany({ conversationKey: conversation._id });
    if (added.length === 0 || !made('issues-insert')) return;
    await ConversationIssue.insertMany(
      added.map((issue, index): IssueDoc => ({
        _id: newId(),
        organizationId,
        conversationKey: conversation._id,
        conversationId: conversation.conversationId,
        clusterId: outcome.assigned[index],
        title: issue.title,
        summary: issue.summary,
        terms: issue.terms,
        embedding: issue.embedding ?? undefined,
        createdAt: conversation.createdAt,
        week,
        ingestedAt: now,
      })),
    );
  };
  await Promise.all([
    saveClusters(
      ctx,
      organizationId,
      org,
      [...outcome.touched].filter((id) => made('cluster', id)),
    ),
    replaceIssues(),
  ]);
  stopIfSkipped();
  // 3. The conversation, once its issues and clusters are readable; 4. the journal closed.
  if (made('conversation'))
    await Conversation.updateOne(
      { _id: conversation._id, revision: conversation.revision },
      { $set: { processedAt: now, processedRevision: conversation.revision, pending: false, clusteredSource: conversation.source } },
    );
  stopIfSkipped();
  if (changes && made('journal-clear')) await clearJournal(ctx, organizationId, attempt);
  stopIfSkipped();
}

/** Processes revision `revision` of the conversation `key` (see above). */
export async function processConversation(ctx: InsightsContext, key: string, revision: number, faults?: ProcessingFaults): Promise<ProcessOutcome> {
  const { Conversation } = ctx.models;
  const conversation = await Conversation.findById(key).lean<ConversationDoc>();
  if (!conversation) return 'missing';
  if (conversation.revision !== revision) return 'stale';
  if (conversation.processedAt && conversation.processedRevision >= revision) return 'processed';
  const issues = await issuesOf(ctx, conversation);
  return withRedisLock(
    ctx.redis,
    clusterLockKey(conversation.organizationId),
    async (): Promise<ProcessOutcome> => {
      // Read again under the lock: a newer ingestion leaves the work to its own job.
      const fresh = await Conversation.findById(key).lean<ConversationDoc>();
      if (!fresh) return 'missing';
      if (fresh.revision !== revision) return 'stale';
      if (fresh.processedAt && fresh.processedRevision >= revision) return 'processed';
      await clusterAndStore(ctx, fresh, issues, faults);
      return 'processed';
    },
    // Short pauses between attempts: the lock is handed from job to job of one organization all the time.
    {
      ttlMs: ctx.config.CONVERSATION_CLUSTER_LOCK_MS,
      renewEveryMs: ctx.config.CONVERSATION_CLUSTER_LOCK_MS / 3,
      waitMs: CLUSTER_LOCK_WAIT_MS,
      initialPauseMs: 2,
      maxPauseMs: 10,
      logger: ctx.logger,
    },
  );
}
