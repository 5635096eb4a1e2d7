import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { clusterConversation, rebuildCluster, type ClusterableIssue, type OrganizationClusters, type StoredIssue } from './clustering';
import { describeCluster, iconFor, labelFor } from './labels';
import { termsOf } from './nlp';
import { countIssue, distinctiveTerms, emptyStats, idfOf, issueVector, likeness, vectorLikeness } from './vectors';
import { weekOf } from './weekly';

const now = new Date('2025-06-11T12:00:00Z');
const issue = (text: string, week = weekOf(now)): ClusterableIssue => ({ title: text, terms: termsOf(text), week });

function organization(): { org: OrganizationClusters; deps: Parameters<typeof clusterConversation>[2] } {
  const org: OrganizationClusters = { stats: emptyStats(), clusters: new Map(), counts: new Map() };
  let next = 0;
  return { org, deps: { loadCounts: async () => new Map(), newId: () => `c${++next}`, now } };
}

describe('BM25 vectors over running statistics', () => {
  it('counts issues in and out, weighs rare terms more, normalizes vectors', () => {
    const stats = emptyStats();
    countIssue(stats, ['password', 'reset', 'password'], 1);
    countIssue(stats, ['password', 'login'], 1);
    assert.equal(stats.docs, 2);
    assert.equal(stats.totalLength, 5);
    assert.equal(stats.df.get('password'), 2);
    assert.ok(idfOf(stats, 'reset') > idfOf(stats, 'password'));
    const vector = issueVector(stats, ['password', 'reset']);
    const norm = Math.sqrt(Object.values(vector).reduce((sum, v) => sum + v * v, 0));
    assert.ok(Math.abs(norm - 1) < 1e-4, `norm ${norm}`);
    assert.ok(Math.abs(likeness(vector, vector) - 1) < 1e-4);
    assert.equal(likeness(vector, issueVector(stats, ['login'])), 0);
    countIssue(stats, ['password', 'login'], -1);
    assert.equal(stats.df.has('login'), false);
    assert.equal(stats.docs, 1);
  });

  it('ranks a cluster’s distinctive terms: shared by its issues, rare elsewhere', () => {
    const stats = emptyStats();
    for (let i = 0; i < 10; i++) countIssue(stats, ['account', i < 3 ? 'invoice' : 'search'], 1);
    const top = distinctiveTerms(
      stats,
      new Map([
        ['invoice', 3],
        ['account', 3],
      ]),
      3,
      2,
    );
    assert.deepEqual(
      top.map(({ k }) => k),
      ['invoice', 'account'],
    );
  });
});

describe('incremental clustering', () => {
  it('joins issues about the same thing, starts a cluster for a new one, and keeps counts true on removal', async () => {
    const { org, deps } = organization();
    const a = await clusterConversation(org, { source: 'intercom', removed: [], added: [issue('The password reset email never arrives.')] }, deps);
    const b = await clusterConversation(org, { source: 'zendesk', removed: [], added: [issue('I did not get the reset password email.')] }, deps);
    const c = await clusterConversation(org, { source: 'intercom', removed: [], added: [issue('Exporting the space to PDF fails.')] }, deps);
    assert.equal(a.assigned[0], b.assigned[0]);
    assert.notEqual(c.assigned[0], a.assigned[0]);
    const passwords = org.clusters.get(a.assigned[0])!;
    assert.equal(passwords.issues, 2);
    assert.equal(passwords.conversations, 2);
    assert.deepEqual(Object.fromEntries(passwords.sources), { intercom: 1, zendesk: 1 });
    assert.deepEqual([...passwords.weeks], [[weekOf(now), 2]]);
    assert.equal(org.stats.docs, 3);

    // The second conversation ingested again about something else: its issue moves.
    const removed = [{ ...issue('I did not get the reset password email.'), clusterId: b.assigned[0] }];
    const again = await clusterConversation(org, { source: 'zendesk', removed, added: [issue('The PDF export of my space fails with an error.')] }, deps);
    assert.equal(again.assigned[0], c.assigned[0]);
    assert.equal(passwords.issues, 1);
    assert.equal(passwords.conversations, 1);
    assert.deepEqual(Object.fromEntries(passwords.sources), { intercom: 1 });
    assert.equal(org.clusters.get(c.assigned[0])!.issues, 2);
    assert.equal(org.stats.docs, 3);

    // Removing the last issue of a cluster leaves it empty (the caller deletes it).
    const emptied = await clusterConversation(
      org,
      { source: 'intercom', removed: [{ ...issue('The password reset email never arrives.'), clusterId: a.assigned[0] }], added: [] },
      deps,
    );
    assert.ok(emptied.touched.has(a.assigned[0]));
    assert.equal(passwords.issues, 0);
    assert.equal(passwords.conversations, 0);
  });

  it('counts a conversation once per cluster even with two issues in it, and only recent weeks', async () => {
    const { org, deps } = organization();
    const old = weekOf(now) - 20;
    const out = await clusterConversation(
      org,
      { source: 'slack', removed: [], added: [issue('Search does not find my pages.', old), issue('Why does search not find new pages?', old)] },
      deps,
    );
    assert.equal(out.assigned[0], out.assigned[1]);
    const cluster = org.clusters.get(out.assigned[0])!;
    assert.equal(cluster.issues, 2);
    assert.equal(cluster.conversations, 1);
    assert.equal(cluster.weeks.size, 0);
  });
});

describe('counting a cluster again from its issues', () => {
  it('gives the running state the incremental path keeps', async () => {
    const { org, deps } = organization();
    const stored: StoredIssue[] = [];
    const conversations: Array<[key: string, source: string, texts: string[], week?: number]> = [
      ['k1', 'intercom', ['The password reset email never arrives.']],
      ['k2', 'zendesk', ['I did not get the reset password email.', 'Why is the reset email not sent?'], weekOf(now) - 1],
      ['k3', 'intercom', ['Password reset emails never reach my inbox.'], weekOf(now) - 30],
    ];
    for (const [key, source, texts, week] of conversations) {
      const added = texts.map((text) => issue(text, week));
      const { assigned } = await clusterConversation(org, { source, removed: [], added }, deps);
      added.forEach((one, i) => stored.push({ ...one, clusterId: assigned[i], conversationKey: key, ingestedAt: new Date(now.getTime() + stored.length) }));
    }
    const sourceOf = (key: string) => conversations.find(([k]) => k === key)![1];
    for (const [id, kept] of org.clusters) {
      const { cluster, counts } = rebuildCluster(
        id,
        kept,
        stored.filter((one) => one.clusterId === id),
        sourceOf,
        org.stats,
        now,
      );
      for (const field of ['issues', 'conversations', 'sources', 'weeks', 'top', 'samples', 'label', 'createdAt'] as const)
        assert.deepEqual(cluster[field], kept[field], field);
      assert.deepEqual(counts, org.counts.get(id));
    }
  });
});

describe('default cluster descriptions', () => {
  it('labels with the most distinctive terms and picks an icon from them', () => {
    assert.equal(labelFor(['password', 'reset', 'email', 'spam']), 'Password reset email');
    assert.equal(iconFor(['password', 'reset']), 'lock');
    assert.equal(iconFor(['zebra']), 'circle-question');
    const described = describeCluster({ issues: 2, conversations: 1, samples: ['Cannot reset'] } as never, [{ k: 'invoice', v: 2 }]);
    assert.equal(described.icon, 'credit-card');
    assert.equal(described.summary, '2 issues in 1 conversation about invoice. For example: “Cannot reset”');
    assert.ok(described.icon.length <= 50);
  });
});

describe('embeddings', () => {
  it('compares dense vectors by cosine', () => {
    assert.equal(vectorLikeness([1, 0], [2, 0]), 1);
    assert.equal(vectorLikeness([1, 0], [0, 3]), 0);
    assert.equal(vectorLikeness([0, 0], [1, 0]), 0);
    assert.equal(vectorLikeness([1], [1, 0]), 0);
    assert.ok(Math.abs(vectorLikeness([1, 1], [1, 0]) - Math.SQRT1_2) < 1e-5);
  });
});
