import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import type { Database } from '@quire/runtime';
import { expectOk, startTestStack, waitFor, type TestAccount, type TestStack } from '@quire/testkit';
import {
  clusteringProblems,
  labelledConversations,
  type ClusterDoc,
  type ClusterTermsDoc,
  type ConversationDoc,
  type IssueDoc,
  type TermStatsDoc,
} from '../conversations';

/*
 * The insights service killed (SIGKILL) while conversations are being processed, then
 * restarted by the stack's supervisor as `npm start` does; ingestion goes on through the kill
 * (503s while the service is down, retried). Once every conversation is processed, everything
 * is as if nothing had happened: each acknowledged conversation listed once and processed, its
 * issues from one processing, and every number of the clusters (issues, conversations,
 * sources, weekly pulse, term counts) and of the term statistics what the issues say.
 *
 * Several organizations are processed at once (one clustering lock each), so at the kill
 * several processings are likely between their writes; whether one was is reported (an open
 * journal whose conversation still waits), not required: process-repair.test.ts cuts every
 * write deterministically.
 */

const ORGANIZATIONS = 3;
/** Conversations per known problem (ten problems): 80 in all. */
const PER_PROBLEM = 8;
const BATCH = 4;
/** Conversations processed before the first kill, and more before the next. */
const PROCESSED_BEFORE_KILL = 12;
const KILLS = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('insights: a crash mid-processing leaves every number true', () => {
  let stack: TestStack;
  let db: Database;
  const owners: TestAccount[] = [];

  const collection = <T extends { _id: string }>(name: string) => db.collection<T>(name);

  beforeAll(async () => {
    stack = await startTestStack({ JOB_LOCK_MS: '6000', JOB_STALLED_CHECK_MS: '3000', CONVERSATION_CLUSTER_LOCK_MS: '6000', CONVERSATION_SWEEP_MS: '5000' });
    for (let i = 0; i < ORGANIZATIONS; i++) owners.push(await stack.account(['bootstrap', '--email', `admin@crash-${i}.test`, '--org', `Crash ${i}`]));
    db = await stack.serviceDatabase('insights');
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
  });

  it('processes every conversation once, with true clusters and statistics, after insights is killed mid-processing and restarted', async () => {
    const set = labelledConversations({ perProblem: PER_PROBLEM, prefix: 'crash' }).map(({ input }) => input);
    const ofOrganization = owners.map((_, i) => set.filter((_c, n) => n % ORGANIZATIONS === i));
    const processedCount = () => collection<ConversationDoc>('conversations').countDocuments({ pending: false });

    // Writers post their organization's conversations in small batches, through the kill: a
    // batch answered 503 (insights down) is posted again; anything else than 204 or 503 fails.
    const started = Date.now();
    let unavailable = 0;
    const acknowledged: string[][] = owners.map(() => []);
    const writers = Promise.all(
      owners.map(async (owner, i) => {
        const mine = ofOrganization[i];
        for (let at = 0; at < mine.length; at += BATCH) {
          const batch = mine.slice(at, at + BATCH);
          const since = Date.now();
          for (;;) {
            const answer = await owner.api.post(`/v1/orgs/${owner.organizationId}/conversations`, batch);
            if (answer.status === 204) break;
            assert.equal(answer.status, 503, `ingestion answered ${answer.status}: ${JSON.stringify(answer.body)}`);
            assert.ok(Date.now() - since < 60_000, 'ingestion unavailable for a minute');
            unavailable += 1;
            await sleep(200);
          }
          acknowledged[i].push(...batch.map((input) => input.id));
        }
      }),
    );
    // A failed write fails the test at once: in the waits for the kills, and when the writers are awaited after them.
    let failedWrite: unknown;
    writers.catch((error: unknown) => (failedWrite = error));
    const assertWriting = () => {
      if (failedWrite) throw failedWrite;
    };

    // Killed KILLS times, each time once more conversations are processed and while a processing
    // is between its writes (its journal open); restarted by the supervisor each time.
    const stats = collection<TermStatsDoc>('conversation_term_stats');
    const cutNow = async () => {
      const cut: string[] = [];
      for (const doc of await stats.find({ journal: { $ne: null } }).toArray()) {
        const conversation = await collection<ConversationDoc>('conversations').findOne({ _id: doc.journal!.conversationKey });
        if (conversation?.pending) cut.push(doc.journal!.conversationKey);
      }
      return cut;
    };
    const kills: Array<{ processed: number; cut: number; at: number }> = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const [before] = stack.servicePids('insights');
      assert.ok(before, 'the stack runs an insights process');
      const threshold = (kills.at(-1)?.processed ?? 0) + PROCESSED_BEFORE_KILL;
      const waitStarted = Date.now();
      // After a restart, processing resumes once the killed process's clustering locks expired (30 s).
      while ((await processedCount()) < threshold || (await cutNow()).length === 0) {
        assertWriting();
        assert.ok(Date.now() - waitStarted < 90_000, `no processing between its writes with ${threshold} conversations processed`);
        await sleep(2);
      }
      process.kill(before, 'SIGKILL');
      const at = Date.now();
      kills.push({ processed: await processedCount(), cut: (await cutNow()).length, at });
      await waitFor('the supervisor to restart insights', async () => stack.servicePids('insights').some((pid) => pid !== before), 30_000);
    }
    const crashed = kills.at(-1)!.at;
    // Every batch acknowledged (204), through the kills, before anything is counted.
    await writers;
    // Every conversation processed. BullMQ runs the dead worker's jobs again once their lock
    // (30 s) expired and a stalled check saw them, the clustering locks it held expire after
    // 30 s, and the sweep queues again what waits: done well within two minutes.
    let failure: { status: number; body: unknown } | undefined;
    await waitFor(
      'every conversation processed',
      async () => {
        for (const owner of owners) {
          const answer = await owner.api.get(`/v1/orgs/${owner.organizationId}/conversations?limit=1000`);
          if (answer.status === 503) return false;
          if (answer.status !== 200) {
            failure = answer;
            return true;
          }
          if (!answer.body.items.every((item: any) => item.processedAt)) return false;
        }
        return true;
      },
      150_000,
    );
    assert.equal(failure, undefined, 'listing the conversations failed');
    const recoveredMs = Date.now() - crashed;

    for (const [i, owner] of owners.entries()) {
      const base = `/v1/orgs/${owner.organizationId}`;
      const conversations = expectOk(await owner.api.get(`${base}/conversations?limit=1000`)).items as any[];
      const ids = conversations.map((item) => item.id as string);
      assert.equal(new Set(ids).size, ids.length, 'no conversation listed twice');
      assert.deepEqual([...ids].sort(), [...acknowledged[i]].sort(), 'every acknowledged conversation, and only those');
      const sourceOf = new Map(conversations.map((item) => [item.id as string, item.source as string]));

      const issues = expectOk(await owner.api.get(`${base}/conversations-issues?limit=1000`)).items.map((item: any) => item.issue) as any[];
      const clusters = expectOk(await owner.api.get(`${base}/conversations-clusters?limit=1000`)).items as any[];
      const clusterIds = new Set(clusters.map((cluster) => cluster.id as string));
      for (const issue of issues) assert.ok(clusterIds.has(issue.cluster), `issue ${issue.id}: its cluster exists`);
      // Each conversation's issues come from one processing.
      const attempts = new Map<string, Set<string>>();
      for (const issue of issues) attempts.set(issue.conversation, (attempts.get(issue.conversation) ?? new Set()).add(issue.ingestedAt));
      for (const [id, times] of attempts) assert.equal(times.size, 1, `${id}: issues of one processing`);
      for (const cluster of clusters) {
        const own = issues.filter((issue) => issue.cluster === cluster.id);
        const name = `cluster ${cluster.id} (${cluster.label})`;
        assert.ok(own.length > 0, `${name} is not empty`);
        assert.equal(cluster.stats.issues, own.length, `${name}: issues`);
        const conversationIds = new Set(own.map((issue) => issue.conversation as string));
        assert.equal(cluster.stats.conversations, conversationIds.size, `${name}: conversations`);
        const sources: Record<string, number> = {};
        for (const id of conversationIds) sources[sourceOf.get(id)!] = (sources[sourceOf.get(id)!] ?? 0) + 1;
        assert.deepEqual(cluster.sources, sources, `${name}: sources`);
        // The labelled set is dated within the last ten weeks: the 13-week pulse holds every issue.
        assert.equal(
          (cluster.weeklyPulse as number[]).reduce((a, b) => a + b, 0),
          own.length,
          `${name}: weekly pulse`,
        );
      }

      // What the API does not show: the term counts of the clusters and the organization's statistics.
      const organizationId = owner.organizationId;
      const [conversationDocs, issueDocs, clusterDocs, clusterTerms, stats] = await Promise.all([
        collection<ConversationDoc>('conversations').find({ organizationId }).toArray(),
        collection<IssueDoc>('conversation_issues').find({ organizationId }).toArray(),
        collection<ClusterDoc>('issues_clusters').find({ organizationId }).toArray(),
        collection<ClusterTermsDoc>('issues_cluster_terms').find({ organizationId }).toArray(),
        collection<TermStatsDoc>('conversation_term_stats').findOne({ _id: organizationId }),
      ]);
      assert.equal(issueDocs.length, issues.length);
      assert.deepEqual(clusteringProblems({ conversations: conversationDocs, issues: issueDocs, clusters: clusterDocs, clusterTerms, stats }), []);
    }

    assert.equal((stack.output().match(/insights exited \(SIGKILL\)/g) ?? []).length, KILLS);
    const repairs = (stack.output().match(/repaired the clusters of an interrupted conversation processing/g) ?? []).length;
    console.log(
      `crash: ${set.length} conversations in ${ORGANIZATIONS} organizations, killed ${KILLS} times ` +
        `(${kills.map((kill) => `${kill.processed} processed, ${kill.cut} processing(s) cut between writes`).join('; ')}), ` +
        `${repairs} repair(s) logged, ${unavailable} ingestion(s) answered 503, all processed ${recoveredMs} ms after the last kill ` +
        `(${Date.now() - started} ms from the first ingestion)`,
    );
  });
});
