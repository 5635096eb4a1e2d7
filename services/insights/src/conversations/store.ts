import type { InsightsContext } from '../kernel';
import type { ClusterState, OrganizationClusters } from './clustering';
import { termCountsJson, type ClusterDoc, type ClusteringJournalDoc, type IssueDoc } from './models';
import type { TermStats } from './vectors';

/*
 * Loading and saving an organization's clustering state: its term statistics (one document,
 * which also holds the journal of the processing under way), its clusters (without their full
 * term counts), and the full counts of the clusters a conversation touches. Called only while
 * holding the organization's clustering lock.
 */

const toMap = <K extends string | number>(pairs: ReadonlyArray<{ k: K; v: number }>) => new Map(pairs.map(({ k, v }) => [k, v]));
const toPairs = <K extends string | number>(map: ReadonlyMap<K, number>) => [...map].map(([k, v]) => ({ k, v }));

/** A stored cluster as clustering state. */
export function clusterState(doc: ClusterDoc): ClusterState {
  return {
    id: doc._id,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    issues: doc.issues,
    conversations: doc.conversations,
    sources: toMap(doc.sources),
    weeks: toMap(doc.weeks),
    top: doc.top.map(({ k, v }) => ({ k, v })),
    samples: [...doc.samples],
    embeddingSum: doc.embeddingSum && doc.embeddingSum.length > 0 ? [...doc.embeddingSum] : null,
    embedded: doc.embedded ?? 0,
    label: doc.label,
    icon: doc.icon,
    summary: doc.summary,
    labelledAt: doc.labelledAt ?? 0,
  };
}

/** The organization's term statistics and clusters (their full term counts load on demand), and its clustering journal. */
export async function loadOrganizationClusters(
  ctx: InsightsContext,
  organizationId: string,
): Promise<{ org: OrganizationClusters; journal: ClusteringJournalDoc | null }> {
  const { ConversationTermStats, IssuesCluster } = ctx.models;
  const [statsDoc, clusters] = await Promise.all([ConversationTermStats.findById(organizationId).lean(), IssuesCluster.find({ organizationId }).lean()]);
  const stats: TermStats = { docs: statsDoc?.docs ?? 0, totalLength: statsDoc?.totalLength ?? 0, df: termCountsJson.read(statsDoc?.df) };
  return {
    org: { stats, clusters: new Map(clusters.map((doc) => [doc._id, clusterState(doc)])), counts: new Map() },
    journal: statsDoc?.journal?.attempt ? statsDoc.journal : null,
  };
}

/** A cluster's full term counts (empty for a cluster not stored yet). */
export async function loadClusterCounts(ctx: InsightsContext, clusterId: string): Promise<Map<string, number>> {
  const doc = await ctx.models.IssuesClusterTerms.findById(clusterId).lean();
  return termCountsJson.read(doc?.counts);
}

/** The issues listing a cluster (an indexed query: O(the cluster)). */
export function loadClusterIssues(ctx: InsightsContext, organizationId: string, clusterId: string): Promise<IssueDoc[]> {
  return ctx.models.ConversationIssue.find({ organizationId, clusterId }, { summary: 0 }).lean<IssueDoc[]>();
}

/** Writes the organization's term statistics with the journal of the processing that counted them (null: none under way). */
export async function saveTermStats(ctx: InsightsContext, organizationId: string, stats: TermStats, journal: ClusteringJournalDoc | null): Promise<void> {
  await ctx.models.ConversationTermStats.updateOne(
    { _id: organizationId },
    { $set: { docs: stats.docs, totalLength: stats.totalLength, df: termCountsJson.write(Object.fromEntries(stats.df)), journal, updatedAt: new Date() } },
    { upsert: true },
  );
}

/** Clears the journal of the attempt `attempt`, if it is still the organization's. */
export async function clearJournal(ctx: InsightsContext, organizationId: string, attempt: string): Promise<void> {
  await ctx.models.ConversationTermStats.updateOne({ _id: organizationId, 'journal.attempt': attempt }, { $set: { journal: null } });
}

/** Writes these clusters as they are in `org` (deleting those left empty, also from `org`), each with its full term counts. */
export async function saveClusters(ctx: InsightsContext, organizationId: string, org: OrganizationClusters, ids: Iterable<string>): Promise<void> {
  const { IssuesCluster, IssuesClusterTerms } = ctx.models;
  const saveCluster = async (id: string) => {
    const cluster = org.clusters.get(id);
    if (!cluster || cluster.issues <= 0) {
      org.clusters.delete(id);
      await Promise.all([IssuesCluster.deleteOne({ _id: id, organizationId }), IssuesClusterTerms.deleteOne({ _id: id })]);
      return;
    }
    const counts = org.counts.get(id) ?? new Map<string, number>();
    await Promise.all([
      IssuesClusterTerms.updateOne({ _id: id }, { $set: { organizationId, counts: termCountsJson.write(Object.fromEntries(counts)) } }, { upsert: true }),
      IssuesCluster.updateOne(
        { _id: id },
        {
          $set: {
            organizationId,
            label: cluster.label,
            icon: cluster.icon,
            summary: cluster.summary,
            labelledAt: cluster.labelledAt,
            issues: cluster.issues,
            conversations: cluster.conversations,
            sources: toPairs(cluster.sources),
            weeks: toPairs(cluster.weeks),
            top: cluster.top,
            samples: cluster.samples,
            embeddingSum: cluster.embeddingSum ?? [],
            embedded: cluster.embedded,
            createdAt: cluster.createdAt,
            updatedAt: cluster.updatedAt,
          },
        },
        { upsert: true },
      ),
    ]);
  };
  await Promise.all([...new Set(ids)].map(saveCluster));
}
