import { performance } from 'node:perf_hooks';
import { createJobQueue } from '@quire/async';
import { labelledConversations, measureClustering, type LabelledAssignment } from '@quire/insights';
import { createLogger } from '@quire/runtime';
import { apiClient, successBody, type ApiClient, type TestStack } from '@quire/testkit';

/*
 * `npm run bench -- conversations`: ingestion of support conversations and the quality of
 * their clustering, on the labelled set (about ten known problems, many phrasings each).
 *
 * The set is POSTed through the gateway by WRITERS clients at once, one conversation per
 * request; throughput is conversations processed per second, from the first POST to the last
 * `processedAt` (issues extracted and clustered, the organization's clustering serialized).
 *
 * The floor, started in the same run: a bare BullMQ round trip on the same Redis, as many jobs
 * as conversations, added by as many clients and taken by a worker of the same concurrency,
 * whose processor does nothing: what queueing the work costs, without Quire's. The ratio is the
 * ingestion's own work (validation, the conversation's write, extraction, clustering, writes).
 *
 * Then the clustering is measured against the known problems: purity (issues in a cluster
 * whose majority problem is theirs) and the problems that got a cluster of their own.
 */

const WRITERS = 8;
const PER_PROBLEM = 22;
const PROCESSING_TIMEOUT_MS = 300_000;
/** The worker concurrency of the insights service's processing queue. */
const WORKER_CONCURRENCY = 4;

/** Jobs per second through a bare BullMQ queue: `count` no-op jobs, added by WRITERS clients, run by one worker. */
async function floorJobsPerSecond(stack: Pick<TestStack, 'env'>, count: number): Promise<number> {
  const queue = createJobQueue<{ n: number }, void>('bench-conversations-floor', {
    redisUrl: stack.env.redisUrl,
    prefix: `${stack.env.redisPrefix}bench-floor:`,
    logger: createLogger('bench', 'warn'),
  });
  try {
    let done = 0;
    let finished = 0;
    const all = new Promise<void>((resolve) => {
      queue
        .work(async () => {}, { concurrency: WORKER_CONCURRENCY })
        .on('completed', () => {
          done += 1;
          if (done === count) {
            finished = performance.now();
            resolve();
          }
        });
    });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let n = writer; n < count; n += WRITERS) await queue.add({ n }, { jobId: `floor-${n}` });
      }),
    );
    await all;
    return count / ((finished - started) / 1000);
  } finally {
    await queue.close();
  }
}

/** Every conversation of the organization (its list, page after page). */
async function allConversations(api: ApiClient, organizationId: string): Promise<Array<{ id: string; processedAt?: string }>> {
  const items: Array<{ id: string; processedAt?: string }> = [];
  let page: string | undefined;
  do {
    const answer = successBody(
      await api.get(`/v1/orgs/${organizationId}/conversations?limit=1000${page ? `&page=${encodeURIComponent(page)}` : ''}`),
      'list conversations',
    );
    items.push(...answer.items);
    page = answer.next?.page;
  } while (page);
  return items;
}

/** Every issue of the organization with its conversation's id and cluster. */
async function allIssues(api: ApiClient, organizationId: string): Promise<Array<{ conversation: string; cluster: string }>> {
  const items: Array<{ conversation: string; cluster: string }> = [];
  let page: string | undefined;
  do {
    const answer = successBody(
      await api.get(`/v1/orgs/${organizationId}/conversations-issues?limit=1000${page ? `&page=${encodeURIComponent(page)}` : ''}`),
      'list issues',
    );
    items.push(...answer.items.map((item: { issue: { conversation: string; cluster: string } }) => item.issue));
    page = answer.next?.page;
  } while (page);
  return items;
}

export async function benchConversations(stack: TestStack, options: { log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const owner = await stack.cli(['bootstrap', '--email', `bench-conversations-${Date.now()}@bench.test`, '--org', 'Bench conversations', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  const organizationId: string = owner.organizationId;
  const set = labelledConversations({ perProblem: PER_PROBLEM, now: new Date() });

  const floor = await floorJobsPerSecond(stack, set.length);

  const started = performance.now();
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let i = writer; i < set.length; i += WRITERS)
        successBody(await api.post(`/v1/orgs/${organizationId}/conversations`, set[i].input), `ingest ${set[i].input.id}`);
    }),
  );
  const posted = performance.now();
  let conversations: Array<{ id: string; processedAt?: string }> = [];
  const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
  for (;;) {
    conversations = await allConversations(api, organizationId);
    if (conversations.length === set.length && conversations.every((c) => c.processedAt)) break;
    if (Date.now() > deadline) throw new Error(`conversations not all processed within ${PROCESSING_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const lastProcessed = Math.max(...conversations.map((c) => Date.parse(c.processedAt!)));
  const processedPerSecond = set.length / ((lastProcessed - startedAt) / 1000);
  const postsPerSecond = set.length / ((posted - started) / 1000);

  const problemOf = new Map(set.map((c) => [c.input.id, c.problem]));
  const assignments: LabelledAssignment[] = (await allIssues(api, organizationId)).map((issue) => ({
    problem: problemOf.get(issue.conversation)!,
    cluster: issue.cluster,
  }));
  const quality = measureClustering(assignments);

  log(`conversation ingestion: ${set.length} labelled conversations about ${quality.problems} known problems, POSTed by ${WRITERS} clients`);
  log(
    `${'conversations processed per second (first POST → last processedAt)'.padEnd(66)} ${processedPerSecond.toFixed(1).padStart(8)} /s   ` +
      `floor ${floor.toFixed(1).padStart(8)} /s   ×${(floor / processedPerSecond).toFixed(1)}`,
  );
  log(
    `  (floor: a bare BullMQ round trip, ${set.length} no-op jobs by ${WRITERS} clients, worker concurrency ${WORKER_CONCURRENCY}; the POSTs were answered at ${postsPerSecond.toFixed(1)}/s)`,
  );
  log(`${'clustering purity'.padEnd(66)} ${quality.purity.toFixed(3).padStart(8)}`);
  log(`${'known problems with a cluster of their own'.padEnd(66)} ${`${quality.problemsWithOwnCluster.length}/${quality.problems}`.padStart(8)}`);
  log(`  (${quality.issues} issues in ${quality.clusters} clusters)`);
}
