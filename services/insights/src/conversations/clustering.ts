import type { Bow } from 'wink-nlp';
import { centroidVector, countIssue, distinctiveTerms, issueVector, likeness, vectorLikeness, type TermCount, type TermStats } from './vectors';
import { inPulse } from './weekly';

/*
 * Incremental clustering of an organization's issues. Each new issue is compared with the
 * centroid of every cluster (its most distinctive terms, weighed with the organization's
 * current BM25 statistics; or the mean of its embeddings when a provider gives them) and joins
 * the most alike when it is alike enough; otherwise it starts a cluster of its own. A cluster
 * keeps running sums (issues, conversations, per source, per week, per term), so adding or
 * removing an issue costs O(its terms), never a pass over the cluster's issues.
 *
 * Everything here works on memory: the caller loads the organization's state, runs
 * {@link clusterConversation} while holding the organization's lock, and writes back what changed.
 */

/** An issue with a BM25 likeness of at least this to a cluster's centroid joins it. */
export const JOIN_LIKENESS = 0.2;
/** The same with embeddings (cosine of the issue's and the cluster's mean embedding). */
export const JOIN_EMBEDDING_LIKENESS = 0.8;
/** Terms of a centroid compared with issues (the most distinctive ones). */
export const CENTROID_TERMS = 60;
/** Titles kept per cluster (the latest), for labels and summaries. */
export const SAMPLE_TITLES = 5;

/** A cluster's running state. */
export interface ClusterState {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  issues: number;
  conversations: number;
  /** Conversations per source. */
  sources: Map<string, number>;
  /** Issues per week number (recent weeks only). */
  weeks: Map<number, number>;
  /** Its most distinctive terms with the number of its issues containing each: what issues are compared with. */
  top: TermCount[];
  /** Titles of its latest issues. */
  samples: string[];
  /** Sum of its issues' embeddings and how many there are (a provider's embeddings). */
  embeddingSum: number[] | null;
  embedded: number;
  label: string;
  icon: string;
  summary: string;
  /** Issue count when the label was last made. */
  labelledAt: number;
}

/** An issue as clustering sees it. */
export interface ClusterableIssue {
  terms: string[];
  /** Week number of its conversation. */
  week: number;
  title: string;
  embedding?: number[] | null;
}

/** An issue already clustered (stored), being taken out of its cluster. */
export interface ClusteredIssue extends ClusterableIssue {
  clusterId: string;
}

/** An organization's clustering state, as loaded for one conversation. */
export interface OrganizationClusters {
  stats: TermStats;
  clusters: Map<string, ClusterState>;
  /** Full term counts of the clusters loaded so far (only those touched need them). */
  counts: Map<string, Map<string, number>>;
}

/** What clustering needs from storage: a cluster's full term counts, and ids for new clusters. */
export interface ClusteringDeps {
  loadCounts(clusterId: string): Promise<Map<string, number>>;
  newId(): string;
  now: Date;
}

/** A new, empty cluster. */
export function newCluster(id: string, now: Date): ClusterState {
  return {
    id,
    createdAt: now,
    updatedAt: now,
    issues: 0,
    conversations: 0,
    sources: new Map(),
    weeks: new Map(),
    top: [],
    samples: [],
    embeddingSum: null,
    embedded: 0,
    label: '',
    icon: '',
    summary: '',
    labelledAt: 0,
  };
}

const bump = <K>(map: Map<K, number>, key: K, by: number) => {
  const value = (map.get(key) ?? 0) + by;
  if (value > 0) map.set(key, value);
  else map.delete(key);
};

/** Adds (sign 1) or removes (sign -1) an issue's contribution to a cluster and its term counts. */
function countInCluster(cluster: ClusterState, counts: Map<string, number>, issue: ClusterableIssue, sign: 1 | -1, now: Date): void {
  cluster.issues = Math.max(0, cluster.issues + sign);
  for (const term of new Set(issue.terms)) bump(counts, term, sign);
  if (sign > 0 ? inPulse(issue.week, now) : cluster.weeks.has(issue.week)) bump(cluster.weeks, issue.week, sign);
  for (const week of [...cluster.weeks.keys()]) if (!inPulse(week, now)) cluster.weeks.delete(week);
  if (issue.embedding && issue.embedding.length > 0) {
    const sum =
      cluster.embeddingSum && cluster.embeddingSum.length === issue.embedding.length ? cluster.embeddingSum : new Array<number>(issue.embedding.length).fill(0);
    cluster.embeddingSum = sum.map((value, i) => value + sign * issue.embedding![i]);
    cluster.embedded = Math.max(0, cluster.embedded + sign);
    if (cluster.embedded === 0) cluster.embeddingSum = null;
  }
  if (sign > 0) cluster.samples = [issue.title, ...cluster.samples.filter((title) => title !== issue.title)].slice(0, SAMPLE_TITLES);
  cluster.updatedAt = now;
}

/** The cluster most alike the issue, when alike enough to join it. */
export function closestCluster(
  stats: TermStats,
  vector: Bow,
  embedding: readonly number[] | null | undefined,
  clusters: Iterable<ClusterState>,
): { cluster: ClusterState; likeness: number } | undefined {
  let best: { cluster: ClusterState; likeness: number } | undefined;
  for (const cluster of clusters) {
    if (cluster.issues <= 0) continue;
    const byEmbedding = embedding && cluster.embeddingSum && cluster.embedded > 0;
    const score = byEmbedding
      ? vectorLikeness(
          embedding,
          cluster.embeddingSum!.map((value) => value / cluster.embedded),
        )
      : likeness(vector, centroidVector(stats, cluster.top, cluster.issues));
    const threshold = byEmbedding ? JOIN_EMBEDDING_LIKENESS : JOIN_LIKENESS;
    if (score >= threshold && (!best || score > best.likeness)) best = { cluster, likeness: score };
  }
  return best;
}

async function countsOf(org: OrganizationClusters, clusterId: string, deps: ClusteringDeps): Promise<Map<string, number>> {
  let counts = org.counts.get(clusterId);
  if (!counts) {
    counts = await deps.loadCounts(clusterId);
    org.counts.set(clusterId, counts);
  }
  return counts;
}

/** What one conversation changed. */
export interface ClusteringOutcome {
  /** The cluster of each added issue, in order. */
  assigned: string[];
  /** Clusters whose state changed (some may now be empty: to delete). */
  touched: Set<string>;
}

/**
 * Takes a conversation's previous issues out of their clusters and clusters its new ones: the
 * organization's statistics, clusters (issues, conversations, sources, weeks, terms) are
 * updated in memory.
 */
export async function clusterConversation(
  org: OrganizationClusters,
  change: { source: string; removed: readonly ClusteredIssue[]; added: readonly ClusterableIssue[]; previousSource?: string },
  deps: ClusteringDeps,
): Promise<ClusteringOutcome> {
  const { now } = deps;
  const touched = new Set<string>();
  const before = new Set<string>();
  for (const issue of change.removed) {
    countIssue(org.stats, issue.terms, -1);
    const cluster = org.clusters.get(issue.clusterId);
    if (!cluster) continue;
    countInCluster(cluster, await countsOf(org, cluster.id, deps), issue, -1, now);
    before.add(cluster.id);
    touched.add(cluster.id);
  }
  for (const id of before) {
    const cluster = org.clusters.get(id)!;
    cluster.conversations = Math.max(0, cluster.conversations - 1);
    bump(cluster.sources, change.previousSource ?? change.source, -1);
  }

  for (const issue of change.added) countIssue(org.stats, issue.terms, 1);
  const assigned: string[] = [];
  const after = new Set<string>();
  for (const issue of change.added) {
    const found = closestCluster(org.stats, issueVector(org.stats, issue.terms), issue.embedding, org.clusters.values());
    let cluster = found?.cluster;
    if (!cluster) {
      cluster = newCluster(deps.newId(), now);
      org.clusters.set(cluster.id, cluster);
      org.counts.set(cluster.id, new Map());
    }
    countInCluster(cluster, await countsOf(org, cluster.id, deps), issue, 1, now);
    assigned.push(cluster.id);
    after.add(cluster.id);
    touched.add(cluster.id);
    refreshTop(org, cluster);
  }
  for (const id of after) {
    const cluster = org.clusters.get(id)!;
    cluster.conversations += 1;
    bump(cluster.sources, change.source, 1);
  }
  for (const id of touched) refreshTop(org, org.clusters.get(id)!);
  return { assigned, touched };
}

/** An issue as stored, as counting its cluster again reads it. */
export interface StoredIssue extends ClusteredIssue {
  conversationKey: string;
  ingestedAt: Date;
}

/**
 * A cluster counted again from its issues (after an interrupted processing, see repair.ts):
 * its running sums and full term counts are what its issues say, its issues added in the order
 * they were stored; `sourceOf` gives the source each conversation is counted under. What is not
 * a count (label, icon, summary, when made and labelled) is kept from `previous`, if any.
 */
export function rebuildCluster(
  id: string,
  previous: ClusterState | undefined,
  issues: readonly StoredIssue[],
  sourceOf: (conversationKey: string) => string,
  stats: TermStats,
  now: Date,
): { cluster: ClusterState; counts: Map<string, number> } {
  const ordered = [...issues].sort((a, b) => a.ingestedAt.getTime() - b.ingestedAt.getTime());
  const cluster = newCluster(id, previous?.createdAt ?? ordered[0]?.ingestedAt ?? now);
  if (previous) Object.assign(cluster, { label: previous.label, icon: previous.icon, summary: previous.summary, labelledAt: previous.labelledAt });
  const counts = new Map<string, number>();
  for (const issue of ordered) countInCluster(cluster, counts, issue, 1, now);
  cluster.updatedAt = now;
  const conversations = new Set(ordered.map((issue) => issue.conversationKey));
  cluster.conversations = conversations.size;
  for (const key of conversations) bump(cluster.sources, sourceOf(key), 1);
  cluster.top = distinctiveTerms(stats, counts, cluster.issues, CENTROID_TERMS);
  return { cluster, counts };
}

/** Recomputes the terms a cluster is compared by, from its full counts. */
function refreshTop(org: OrganizationClusters, cluster: ClusterState): void {
  const counts = org.counts.get(cluster.id);
  if (counts) cluster.top = distinctiveTerms(org.stats, counts, cluster.issues, CENTROID_TERMS);
}
