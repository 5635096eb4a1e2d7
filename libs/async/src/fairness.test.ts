import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { createLogger } from '@quire/runtime';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { withTenantSlot } from './fairness';
import { createJobQueue, type JobQueue } from './jobs';

/** Fair queues and tenant slots against the real Redis, each test under its own queue name. */

const logger = createLogger('fairness-test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface TenantJob {
  organizationId: string;
  n: number;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('fair job queues: tenants take turns, within a cap per tenant', () => {
  let env: TestEnvironment;
  let redis: Redis;
  const opened: JobQueue<TenantJob, void>[] = [];
  const fairQueue = (name: string) => {
    const queue = createJobQueue<TenantJob, void>(name, {
      redisUrl: env.redisUrl,
      prefix: env.redisPrefix,
      logger,
      fairness: { tenantOf: (job) => job.organizationId },
    });
    opened.push(queue);
    return queue;
  };

  beforeAll(async () => {
    env = await testEnvironment();
    redis = new Redis(env.redisUrl);
  });
  afterAll(async () => {
    await Promise.all(opened.map((queue) => queue.close()));
    redis?.disconnect();
    await cleanupTestEnvironment(env);
  });

  it("runs another tenant's single job within the first few, ahead of a 200-job burst, keeping each tenant's order", async () => {
    const queue = fairQueue('fair-burst');
    for (let n = 0; n < 200; n++) await queue.add({ organizationId: 'org-a', n }, { jobId: `a-${n}` });
    await queue.add({ organizationId: 'org-b', n: 0 }, { jobId: 'b-0' });
    const ran: string[] = [];
    queue.work(async (job) => void ran.push(`${job.data.organizationId}:${job.data.n}`), { concurrency: 1 });
    await until('every job', () => ran.length === 201);
    assert.ok(ran.indexOf('org-b:0') <= 2, `B's job ran as number ${ran.indexOf('org-b:0') + 1} of 201`);
    const a = ran.filter((entry) => entry.startsWith('org-a:'));
    assert.deepEqual(
      a,
      Array.from({ length: 200 }, (_, n) => `org-a:${n}`),
      "A's jobs in the order they were queued",
    );
  });

  it('caps the jobs of one tenant running at once over two workers, and promotes parked jobs as slots free', async () => {
    // Two instances of the queue, as two replicas would have: three slots each, two jobs per tenant at once.
    const replicas = [fairQueue('fair-cap'), fairQueue('fair-cap')];
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    let mostOverall = 0;
    const finished: string[] = [];
    // Every job is queued before either replica works, so that the order below depends on the queue's turns,
    // not on how fast the adds go against the workers under load.
    const started = Date.now();
    for (let n = 0; n < 10; n++) await replicas[n % 2].add({ organizationId: 'org-a', n }, { jobId: `a-${n}` });
    for (let n = 0; n < 2; n++) await replicas[n % 2].add({ organizationId: 'org-b', n }, { jobId: `b-${n}` });
    for (const replica of replicas)
      replica.work(
        async (job) => {
          const tenant = job.data.organizationId;
          running.set(tenant, (running.get(tenant) ?? 0) + 1);
          most.set(tenant, Math.max(most.get(tenant) ?? 0, running.get(tenant)!));
          mostOverall = Math.max(
            mostOverall,
            [...running.values()].reduce((sum, value) => sum + value, 0),
          );
          await sleep(100);
          running.set(tenant, running.get(tenant)! - 1);
          finished.push(`${tenant}:${job.data.n}`);
        },
        { concurrency: 3, maxActivePerTenant: 2 },
      );
    await until('every job', () => finished.length === 12);
    const elapsed = Date.now() - started;
    assert.equal(most.get('org-a'), 2, 'at most two of A at once, and two');
    assert.equal(most.get('org-b'), 2);
    assert.ok(mostOverall >= 3, 'B ran beside A');
    assert.ok(finished.indexOf('org-b:1') < finished.indexOf('org-a:9'), "B's jobs were not left behind A's");
    // Ten jobs of 100 ms two at a time: about half a second. A parked job waiting for its safety
    // delay (a minute) instead of being promoted when a slot frees would show here.
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
  });

  it("forgets waiting jobs the queue lost, so that they do not lower their tenant's turns", async () => {
    const name = 'fair-sweep';
    const queue = fairQueue(name);
    for (let n = 0; n < 3; n++) await queue.add({ organizationId: 'org-a', n }, { jobId: `a-${n}` });
    // Removed behind the fair queue's back (an operator, a lost add): BullMQ no longer holds them.
    const raw = new Queue(name, { connection: new Redis(env.redisUrl, { maxRetriesPerRequest: null }), prefix: `${env.redisPrefix}bull` });
    try {
      for (let n = 0; n < 3; n++) await raw.remove(`a-${n}`);
      // A worker sweeps when it starts.
      queue.work(async () => undefined);
      await until('the sweep', async () => (await redis.zcard(`${env.redisPrefix}fair:${name}:waiting:org-a`)) === 0);
      await queue.add({ organizationId: 'org-a', n: 3 }, { jobId: 'a-3', delay: 60_000 });
      assert.equal((await raw.getJob('a-3'))?.priority, 1, 'the first waiting job of its tenant again');
    } finally {
      await raw.close();
      (raw.opts.connection as Redis).disconnect();
    }
  });

  it('counts a job id queued twice once', async () => {
    const name = 'fair-duplicate';
    const queue = fairQueue(name);
    await queue.add({ organizationId: 'org-a', n: 0 }, { jobId: 'same', delay: 60_000 });
    await queue.add({ organizationId: 'org-a', n: 0 }, { jobId: 'same', delay: 60_000 });
    await queue.add({ organizationId: 'org-a', n: 1 }, { jobId: 'next', delay: 60_000 });
    assert.deepEqual(await redis.zrange(`${env.redisPrefix}fair:${name}:waiting:org-a`, '0', '-1', 'WITHSCORES'), ['same', '1', 'next', '2']);
  });
});

describe('tenant slots', () => {
  let env: TestEnvironment;
  let redis: Redis;
  beforeAll(async () => {
    env = await testEnvironment();
    redis = new Redis(env.redisUrl, { keyPrefix: env.redisPrefix });
  });
  afterAll(async () => {
    redis?.disconnect();
    await cleanupTestEnvironment(env);
  });

  it('lets `limit` holders in at once and refuses the next until one leaves', async () => {
    const busy = () => new Error('busy');
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const first = withTenantSlot(redis, 'slots:org-a', 1, () => holding, busy);
    await sleep(20);
    await assert.rejects(
      withTenantSlot(redis, 'slots:org-a', 1, async () => 'in', busy),
      /busy/,
    );
    assert.equal(await withTenantSlot(redis, 'slots:org-b', 1, async () => 'other tenant', busy), 'other tenant');
    release();
    await first;
    assert.equal(await withTenantSlot(redis, 'slots:org-a', 1, async () => 'in', busy), 'in');
  });
});
