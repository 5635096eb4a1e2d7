import { termCountsJson, type ClusterDoc, type ClusterTermsDoc, type ConversationDoc, type IssueDoc, type TermStatsDoc } from './models';
import { inPulse } from './weekly';

/*
 * What an organization's clustering must satisfy, checked from its documents: every number a
 * cluster or the term statistics keep is what the issues say. Tests check it after crashes.
 */

export interface ClusteringDocuments {
  conversations: readonly Pick<ConversationDoc, '_id' | 'source' | 'clusteredSource' | 'pending'>[];
  issues: readonly Pick<IssueDoc, '_id' | 'conversationKey' | 'clusterId' | 'terms' | 'week'>[];
  clusters: readonly Pick<ClusterDoc, '_id' | 'issues' | 'conversations' | 'sources' | 'weeks'>[];
  clusterTerms: readonly Pick<ClusterTermsDoc, '_id' | 'counts'>[];
  stats: Pick<TermStatsDoc, 'docs' | 'totalLength' | 'df' | 'journal'> | null;
}

const increment = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
const sameCounts = <K>(a: ReadonlyMap<K, number>, b: ReadonlyMap<K, number>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
const show = <K>(map: ReadonlyMap<K, number>) => JSON.stringify([...map].sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1)));

/**
 * What is not as the issues say (empty when all is true), as of `now` (the clusters' weeks); an
 * interrupted processing not repaired yet shows here.
 */
export function clusteringProblems(docs: ClusteringDocuments, now = new Date()): string[] {
  const problems: string[] = [];
  const conversations = new Map(docs.conversations.map((doc) => [doc._id, doc]));
  const clusterIds = new Set(docs.clusters.map((cluster) => cluster._id));
  const byCluster = new Map<string, ClusteringDocuments['issues'][number][]>();
  for (const issue of docs.issues) {
    byCluster.set(issue.clusterId, [...(byCluster.get(issue.clusterId) ?? []), issue]);
    if (!clusterIds.has(issue.clusterId)) problems.push(`issue ${issue._id}: its cluster ${issue.clusterId} does not exist`);
  }
  const termsOf = new Map(docs.clusterTerms.map((doc) => [doc._id, termCountsJson.read(doc.counts)]));
  for (const doc of docs.clusterTerms) if (!clusterIds.has(doc._id)) problems.push(`term counts of the missing cluster ${doc._id}`);

  for (const cluster of docs.clusters) {
    const own = byCluster.get(cluster._id) ?? [];
    const name = `cluster ${cluster._id}`;
    if (own.length === 0) problems.push(`${name} has no issue`);
    if (cluster.issues !== own.length) problems.push(`${name}: issues ${cluster.issues}, ${own.length} listed`);
    const keys = new Set(own.map((issue) => issue.conversationKey));
    if (cluster.conversations !== keys.size) problems.push(`${name}: conversations ${cluster.conversations}, ${keys.size} listed`);
    const sources = new Map<string, number>();
    for (const key of keys) {
      const conversation = conversations.get(key);
      increment(sources, conversation ? (conversation.clusteredSource ?? conversation.source) : '?');
    }
    const storedSources = new Map(cluster.sources.map(({ k, v }) => [k, v]));
    if (!sameCounts(storedSources, sources)) problems.push(`${name}: sources ${show(storedSources)}, ${show(sources)} listed`);
    const weeks = new Map<number, number>();
    for (const issue of own) if (inPulse(issue.week, now)) increment(weeks, issue.week);
    const storedWeeks = new Map(cluster.weeks.map(({ k, v }) => [k, v]));
    if (!sameCounts(storedWeeks, weeks)) problems.push(`${name}: weeks ${show(storedWeeks)}, ${show(weeks)} listed`);
    const terms = new Map<string, number>();
    for (const issue of own) for (const term of new Set(issue.terms)) increment(terms, term);
    if (!sameCounts(termsOf.get(cluster._id) ?? new Map(), terms)) problems.push(`${name}: its term counts differ from its issues' terms`);
  }

  const df = new Map<string, number>();
  for (const issue of docs.issues) for (const term of new Set(issue.terms)) increment(df, term);
  const totalLength = docs.issues.reduce((sum, issue) => sum + issue.terms.length, 0);
  const stats = docs.stats ?? { docs: 0, totalLength: 0, df: '{}', journal: null };
  if (stats.docs !== docs.issues.length) problems.push(`term statistics: ${stats.docs} issues, ${docs.issues.length} stored`);
  if (stats.totalLength !== totalLength) problems.push(`term statistics: total length ${stats.totalLength}, ${totalLength} stored`);
  if (!sameCounts(termCountsJson.read(stats.df), df)) problems.push(`term statistics: document frequencies differ from the issues' terms`);
  // A journal left open once its conversation is processed is harmless (all its writes were made before).
  if (stats.journal && conversations.get(stats.journal.conversationKey)?.pending !== false)
    problems.push(`the journal of ${stats.journal.conversationKey}, still waiting, is open`);
  return problems;
}
