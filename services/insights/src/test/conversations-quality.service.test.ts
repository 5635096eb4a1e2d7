import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { insights } from '@quire/proto';
import { createGrpcClient } from '@quire/runtime';
import { cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { insightsConfigSchema, type InsightsConfig, type InsightsContext } from '../kernel';
import {
  closeProcessingQueue,
  conversationKey,
  ingestConversations,
  KNOWN_PROBLEMS,
  labelledConversations,
  measureClustering,
  processConversation,
  type LabelledAssignment,
} from '../conversations';
import { startInsights } from '../service';

/**
 * The default pipeline's quality on the labelled set (about ten known problems, many
 * phrasings each), run through the real datastore and Redis: every conversation ingested and
 * processed in order, the way the worker does it, then the clustering measured.
 */
describe('conversations: clustering quality of the default pipeline (insights service, real datastore)', () => {
  let env: TestEnvironment;
  let config: InsightsConfig;
  let service: Awaited<ReturnType<typeof startInsights>>;
  let ctx: InsightsContext;
  const organizationId = 'quality-org';

  beforeAll(async () => {
    env = await testEnvironment();
    config = insightsConfigSchema.parse(testBackendConfig(env));
    service = await startInsights(config, { handleSignals: false, background: false });
    ctx = service.context;
  });

  afterAll(async () => {
    if (ctx) await closeProcessingQueue(ctx);
    await service?.stop();
    if (env) await cleanupTestEnvironment(env);
  });

  it('puts the issues of each known problem in a cluster of its own, with high purity', async () => {
    const set = labelledConversations({ now: new Date() });
    assert.ok(set.length >= 200 && new Set(set.map((c) => c.problem)).size === KNOWN_PROBLEMS.length);
    for (const { input } of set) {
      await ingestConversations(ctx, organizationId, [input as never]);
      const key = conversationKey(organizationId, input.id);
      const { revision } = (await ctx.models.Conversation.findById(key).lean())!;
      assert.equal(await processConversation(ctx, key, revision), 'processed');
    }
    const problemOf = new Map(set.map((c) => [c.input.id, c.problem]));
    const issues = await ctx.models.ConversationIssue.find({ organizationId }).lean();
    const assignments: LabelledAssignment[] = issues.map((issue) => ({ problem: problemOf.get(issue.conversationId)!, cluster: issue.clusterId }));
    const quality = measureClustering(assignments);
    // The floors this pipeline reaches on this set (measured: purity ≈ 0.99, 10 of 10 problems).
    assert.ok(quality.issues >= set.length, `${quality.issues} issues`);
    assert.ok(quality.purity >= 0.9, `purity ${quality.purity}`);
    assert.ok(quality.problemsWithOwnCluster.length >= 9, `own clusters: ${quality.problemsWithOwnCluster.join(', ')}`);
    assert.ok(quality.clusters <= 40, `${quality.clusters} clusters`);

    // The stored clusters agree with their issues.
    const clusters = await ctx.models.IssuesCluster.find({ organizationId }).lean();
    assert.equal(clusters.length, quality.clusters);
    for (const cluster of clusters) assert.equal(cluster.issues, issues.filter((issue) => issue.clusterId === cluster._id).length);
    assert.equal((await ctx.models.ConversationTermStats.findById(organizationId).lean())!.docs, issues.length);

    // gRPC BatchGetClusters: the clusters asked for, unknown ids left out.
    const client = createGrpcClient(insights.InsightsServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: config.INTERNAL_HMAC_SECRET,
      caller: 'content',
      deadlineMs: 5_000,
    });
    const answer = await client.batchGetClusters({ ids: [clusters[0]._id, 'no-such-cluster', clusters[1]._id] });
    assert.deepEqual(answer.clusters.map((c) => c.id).sort(), [clusters[0]._id, clusters[1]._id].sort());
    const first = answer.clusters.find((c) => c.id === clusters[0]._id)!;
    assert.equal(first.organizationId, organizationId);
    assert.equal(first.label, clusters[0].label);
    assert.equal(first.updateTime?.toISOString(), clusters[0].updatedAt.toISOString());
  });
});
