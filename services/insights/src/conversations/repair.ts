import { findByIds } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { rebuildCluster, type OrganizationClusters, type StoredIssue } from './clustering';
import { journalTermsJson, type ClusteringJournalDoc, type ConversationDoc, type IssueDoc } from './models';
import { loadClusterIssues } from './store';
import { countIssue } from './vectors';

/*
 * Crash safety of processing without multi-document transactions (design.md §5).
 *
 * Processing a conversation writes several documents: the organization's term statistics, the
 * touched clusters (with their full term counts), the conversation's issues and then the
 * conversation itself (`processedAt`). The process may die between any two of them, or the
 * datastore go away; the job is run again later, and clusters hold absolute numbers computed
 * from what was read before the writes, so the usual incremental path cannot tell what was
 * written. What makes it safe:
 *
 *  - The issues are the truth. A cluster's numbers (issues, conversations, sources, weeks,
 *    embeddings, full term counts) are a function of the issues listing it and of the source
 *    each of their conversations is counted under (`clusteredSource`, else `source`: what the
 *    next processing of that conversation takes out).
 *  - A journal goes first. The first write of a processing is the organization's term
 *    statistics document, holding (in the same single-document write) the journal: the
 *    attempt's id, the conversation, the clusters it is about to write and the terms of the
 *    issues it is about to write. Then the clusters and the issues, then the conversation, then
 *    the journal is cleared (only that attempt's). Everything of an organization runs under its
 *    clustering lock, so at most one journal is ever open, and the statistics document found
 *    with a journal is exactly what that attempt wrote.
 *  - The next processing of the organization, whichever conversation it is for, repairs before
 *    anything else when it finds a journal (under the lock): each cluster the journal names and
 *    each cluster the journal's conversation has issues in now is counted again from its issues
 *    (one indexed query by cluster: O(that cluster), on this path only), those left without
 *    issues are deleted, a cluster an issue lists but that was never written is made; the
 *    statistics are set right exactly (they count the journal's terms for the conversation,
 *    they must count its issues as stored). The repaired clusters are written before the
 *    statistics: until then the journal stays, so a crash during the repair only means
 *    repairing again. Every other conversation's issues were counted by a processing that
 *    completed, so counting again is exact.
 *
 * The normal path reads nothing more than before (the statistics document was read already)
 * and writes one document more (the journal's clearing); the statistics are written before the
 * clusters and issues instead of beside them. Like the running counts always did, this relies on
 * the clustering lock's exclusion (a holder keeps renewing it; one that stalls past its TTL
 * could overlap the next one).
 */

const toStored = (issue: IssueDoc): StoredIssue => ({
  clusterId: issue.clusterId,
  conversationKey: issue.conversationKey,
  ingestedAt: issue.ingestedAt,
  terms: issue.terms,
  week: issue.week,
  title: issue.title,
  embedding: issue.embedding,
});

/**
 * Sets `org` (as loaded with `journal`) right after the interrupted processing the journal
 * describes: its statistics, and the clusters to repair counted again from their issues
 * (removed from `org` when they have none). Returns those clusters: the caller (holding the
 * organization's lock) names and writes them, then the statistics, which closes the journal.
 */
export async function repairInterruptedProcessing(
  ctx: InsightsContext,
  organizationId: string,
  org: OrganizationClusters,
  journal: ClusteringJournalDoc,
  now: Date,
): Promise<Set<string>> {
  const { ConversationIssue, Conversation } = ctx.models;
  // The statistics count the journal's terms for its conversation: make them count its issues as stored.
  const current = await ConversationIssue.find({ conversationKey: journal.conversationKey }).lean<IssueDoc[]>();
  for (const terms of journalTermsJson.read(journal.added)) countIssue(org.stats, terms, -1);
  for (const issue of current) countIssue(org.stats, issue.terms, 1);

  const repaired = new Set([...journal.touched, ...current.map((issue) => issue.clusterId)]);
  const issuesOf = new Map<string, IssueDoc[]>();
  for (const id of repaired) issuesOf.set(id, await loadClusterIssues(ctx, organizationId, id));
  const keys = [...new Set([...issuesOf.values()].flat().map((issue) => issue.conversationKey))];
  const conversations = await findByIds(Conversation, keys, { projection: { _id: 1, source: 1, clusteredSource: 1 } });
  const sources = new Map(
    conversations.map((doc: Pick<ConversationDoc, '_id' | 'source' | 'clusteredSource'>) => [doc._id, doc.clusteredSource ?? doc.source]),
  );
  const sourceOf = (key: string) => sources.get(key) ?? 'api';

  for (const [id, issues] of issuesOf) {
    if (issues.length === 0) {
      org.clusters.delete(id);
      org.counts.delete(id);
      continue;
    }
    const { cluster, counts } = rebuildCluster(id, org.clusters.get(id), issues.map(toStored), sourceOf, org.stats, now);
    org.clusters.set(id, cluster);
    org.counts.set(id, counts);
  }
  return repaired;
}
