import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { labelledConversations, KNOWN_PROBLEMS } from './labelled-set';
import { measureClustering } from './quality';

describe('clustering quality measure', () => {
  it('computes purity and the problems with a cluster of their own', () => {
    const quality = measureClustering([
      { problem: 'a', cluster: '1' },
      { problem: 'a', cluster: '1' },
      { problem: 'b', cluster: '1' },
      { problem: 'b', cluster: '2' },
      { problem: 'c', cluster: '3' },
      { problem: 'c', cluster: '4' },
      { problem: 'c', cluster: '5' },
    ]);
    assert.equal(quality.clusters, 5);
    assert.equal(quality.purity, 6 / 7);
    // b's best cluster (2) holds half of it; c is in crumbs of a third each.
    assert.deepEqual(quality.problemsWithOwnCluster, ['a', 'b']);
  });

  it('builds the same labelled set every time, about ten problems, with varied wording', () => {
    const now = new Date('2025-06-11T12:00:00Z');
    const first = labelledConversations({ now });
    assert.deepEqual(labelledConversations({ now }), first);
    assert.ok(first.length >= 200);
    assert.equal(KNOWN_PROBLEMS.length, 10);
    assert.equal(new Set(first.map((c) => c.problem)).size, 10);
    const bodies = new Set(first.map((c) => c.input.parts[0].body));
    assert.ok(bodies.size > first.length * 0.9, `${bodies.size} distinct first messages`);
  });
});
