import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { insightsConfigSchema, type InsightsContext } from '../kernel';
import { startInsights } from '../service';
import { clusteringProblems } from './consistency';
import { conversationKey, ingestConversations, type ConversationInput } from './ingest';
import { labelledConversations } from './labelled-set';
import { processConversation, SimulatedCrash, type ProcessingFaults, type ProcessingWrite } from './process';
import { closeProcessingQueue } from './worker';

/**
 * A processing cut between any two of its writes, as a crash leaves it (simulated: the writes
 * skipped are exactly those a dead process would not have made), then one more processing of
 * the organization, of the same conversation or of another one: every number is true again.
 * Run through the real datastore and Redis, the way the worker processes (no worker here).
 */

interface Scenario {
  name: string;
  /** The writes the crashed attempt does not make. */
  skip: (write: ProcessingWrite, clusterId: string | undefined, seen: { clusters: number }) => boolean;
  /** Whether the crash leaves numbers untrue (else only an open journal). */
  untrue: boolean;
  /** The conversation cut is a new one (else one processed before, ingested again with another content and source). */
  fresh?: boolean;
  /** The repair itself is cut once too (some repaired clusters not written). */
  cutRepair?: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'the statistics and issues written, no cluster', skip: (write) => write === 'cluster', untrue: true },
  { name: 'the statistics and clusters written, the old issues deleted, the new not inserted', skip: (write) => write === 'issues-insert', untrue: true },
  { name: 'the statistics and clusters written, the issues untouched', skip: (write) => write === 'issues-delete', untrue: true },
  {
    name: 'one cluster in two written, the issues deleted',
    skip: (write, _id, seen) => write === 'issues-insert' || (write === 'cluster' && seen.clusters++ % 2 === 0),
    untrue: true,
  },
  // Its issues are counted under its new source, its conversation still says the old one.
  { name: 'everything but the conversation', skip: (write) => write === 'conversation', untrue: true },
  { name: 'everything but the journal closed', skip: (write) => write === 'journal-clear', untrue: false },
  { name: 'a new conversation: its issues written, no cluster', skip: (write) => write === 'cluster', untrue: true, fresh: true },
  { name: 'no cluster written, then the repair cut too', skip: (write) => write === 'cluster', untrue: true, cutRepair: true },
];

describe('conversations: a processing cut between its writes is repaired (insights service, real datastore)', () => {
  let env: TestEnvironment;
  let service: Awaited<ReturnType<typeof startInsights>>;
  let ctx: InsightsContext;
  // Ten problems, interleaved: 20 conversations for the organization, 10 more to ingest later.
  const set = labelledConversations({ perProblem: 3, seed: 7 }).map(({ input }) => input as ConversationInput);
  const [base, later] = [set.slice(0, 20), set.slice(20)];

  beforeAll(async () => {
    env = await testEnvironment();
    service = await startInsights(insightsConfigSchema.parse(testBackendConfig(env)), { handleSignals: false, background: false });
    ctx = service.context;
  });

  afterAll(async () => {
    if (ctx) await closeProcessingQueue(ctx);
    await service?.stop();
    if (env) await cleanupTestEnvironment(env);
  });

  /** Ingests and processes (with `faults` if any) one conversation; returns the outcome or the simulated crash. */
  async function ingestAndProcess(organizationId: string, input: ConversationInput, faults?: ProcessingFaults): Promise<string> {
    await ingestConversations(ctx, organizationId, [input]);
    return processLatest(organizationId, input.id, faults);
  }
  async function processLatest(organizationId: string, id: string, faults?: ProcessingFaults): Promise<string> {
    const key = conversationKey(organizationId, id);
    const { revision } = (await ctx.models.Conversation.findById(key).lean())!;
    try {
      return await processConversation(ctx, key, revision, faults);
    } catch (error) {
      if (error instanceof SimulatedCrash) return 'crashed';
      throw error;
    }
  }

  async function problemsOf(organizationId: string): Promise<string[]> {
    const { Conversation, ConversationIssue, IssuesCluster, IssuesClusterTerms, ConversationTermStats } = ctx.models;
    const [conversations, issues, clusters, clusterTerms, stats] = await Promise.all([
      Conversation.find({ organizationId }).lean(),
      ConversationIssue.find({ organizationId }).lean(),
      IssuesCluster.find({ organizationId }).lean(),
      IssuesClusterTerms.find({ organizationId }).lean(),
      ConversationTermStats.findById(organizationId).lean(),
    ]);
    return clusteringProblems({ conversations, issues, clusters, clusterTerms, stats });
  }

  async function assertAllTrue(organizationId: string, options: { journalClosed: boolean }): Promise<void> {
    assert.deepEqual(await problemsOf(organizationId), []);
    // A journal left open by a processing that made all its writes is closed by the next one.
    if (options.journalClosed)
      assert.equal((await ctx.models.ConversationTermStats.findById(organizationId).lean())?.journal ?? null, null, 'the journal is closed');
    const { Conversation, ConversationIssue } = ctx.models;
    for (const conversation of await Conversation.find({ organizationId }).lean()) {
      assert.ok(
        conversation.processedAt && !conversation.pending && conversation.processedRevision === conversation.revision,
        `${conversation.conversationId} processed`,
      );
      // Its issues come from one processing: the latest.
      const issues = await ConversationIssue.find({ conversationKey: conversation._id }).lean();
      assert.ok(
        issues.every((issue) => issue.ingestedAt.getTime() === conversation.processedAt!.getTime()),
        `${conversation.conversationId}: issues of its last processing only`,
      );
    }
  }

  for (const [index, scenario] of SCENARIOS.entries()) {
    for (const next of ['the same conversation', 'another conversation first'] as const) {
      it(`${scenario.name}; then ${next}`, async () => {
        const organizationId = `repair-${index}-${next === 'the same conversation' ? 'same' : 'other'}`;
        for (const input of base) assert.equal(await ingestAndProcess(organizationId, input), 'processed');
        assert.deepEqual(await problemsOf(organizationId), []);

        // The conversation cut: base[3] ingested again as another problem from another source, or a new one.
        const cut: ConversationInput = scenario.fresh
          ? later[0]
          : { ...later[4], id: base[3].id, metadata: { ...later[4].metadata, attributes: { ...later[4].metadata.attributes, source: 'moved' } } };
        const seen = { clusters: 0 };
        assert.equal(await ingestAndProcess(organizationId, cut, { skip: (write, id) => scenario.skip(write, id, seen) }), 'crashed');
        const left = (await problemsOf(organizationId)).filter((problem) => !problem.startsWith('the journal'));
        if (scenario.untrue) assert.ok(left.length > 0, 'the crash left untrue numbers');
        else assert.deepEqual(left, []);

        if (scenario.cutRepair) {
          const repairs = { n: 0 };
          const outcome = await processLatest(organizationId, cut.id, { skip: (write) => write === 'repaired-cluster' && repairs.n++ % 2 === 1 });
          assert.equal(outcome, 'crashed');
        }
        if (next === 'another conversation first') assert.equal(await ingestAndProcess(organizationId, later[7]), 'processed');
        assert.equal(await processLatest(organizationId, cut.id), 'processed');
        await assertAllTrue(organizationId, { journalClosed: scenario.name !== 'everything but the journal closed' || next !== 'the same conversation' });

        // And the organization goes on as usual.
        assert.equal(await ingestAndProcess(organizationId, later[9]), 'processed');
        assert.equal(await ingestAndProcess(organizationId, { ...base[5], parts: later[2].parts }), 'processed');
        await assertAllTrue(organizationId, { journalClosed: true });
      });
    }
  }
});
