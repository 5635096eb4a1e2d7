import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createLogger, newId } from '@quire/runtime';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { createEventBus, type DomainEvent } from './events';
import { createJobQueue } from './jobs';

const logger = createLogger('async-test', 'silent');

async function until(what: string, check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('event bus on Redis Streams', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await testEnvironment();
  });
  afterAll(() => cleanupTestEnvironment(env));

  const bus = () => createEventBus({ redisUrl: env.redisUrl, prefix: `${env.redisPrefix}${newId(6)}:`, logger });

  it('delivers every event to every group, once per group', async () => {
    const events = bus();
    const a: string[] = [];
    const b: string[] = [];
    await events.subscribe('group-a', async (e) => void a.push(e.type), { blockMs: 50 });
    await events.subscribe('group-b', async (e) => void b.push(e.type), { blockMs: 50 });
    for (const type of ['one', 'two', 'three']) await events.publish({ type, payload: {} });
    await until('both groups', () => a.length === 3 && b.length === 3);
    assert.deepEqual(a, ['one', 'two', 'three']);
    assert.deepEqual(b, ['one', 'two', 'three']);
    await events.close();
  });

  it('redelivers an event whose handler failed (at least once)', async () => {
    const events = bus();
    let attempts = 0;
    const done: string[] = [];
    await events.subscribe(
      'flaky',
      async (e) => {
        if (e.type === 'fragile' && ++attempts === 1) throw new Error('first attempt fails');
        done.push(e.type);
      },
      { retryAfterMs: 100, blockMs: 50 },
    );
    await events.publish({ type: 'fragile', payload: { n: 1 } });
    await until('redelivery', () => done.includes('fragile'));
    assert.equal(attempts, 2);
    await events.close();
  });

  it('processes an event id once, even when published twice', async () => {
    const events = bus();
    const seen: DomainEvent[] = [];
    await events.subscribe('idempotent', async (e) => void seen.push(e), { blockMs: 50 });
    await events.publish({ id: 'evt-1', type: 'dup', payload: { v: 1 } });
    await events.publish({ id: 'evt-1', type: 'dup', payload: { v: 1 } });
    await events.publish({ id: 'evt-2', type: 'dup', payload: { v: 2 } });
    // One consumer handles its stream in order, and evt-2 was published after the duplicate:
    // once evt-2 is handled, the duplicate has been handled (or skipped) too.
    await until('evt-2', () => seen.some((e) => e.id === 'evt-2'));
    assert.deepEqual(
      seen.map((e) => e.id),
      ['evt-1', 'evt-2'],
    );
    await events.close();
  });

  it('shares a group between consumers without losing or repeating events', async () => {
    const events = bus();
    const byConsumer: Record<string, string[]> = { c1: [], c2: [] };
    for (const consumer of ['c1', 'c2']) {
      await events.subscribe('shared', async (e) => void byConsumer[consumer].push(e.id), { consumer, blockMs: 50 });
    }
    const ids = Array.from({ length: 40 }, (_, i) => `e${i}`);
    for (const id of ids) await events.publish({ id, type: 'work', payload: {} });
    await until('all events', () => byConsumer.c1.length + byConsumer.c2.length === 40);
    assert.deepEqual([...byConsumer.c1, ...byConsumer.c2].sort(), [...ids].sort());
    await events.close();
  });

  it('handles up to `concurrency` events at once, each once', async () => {
    const events = bus();
    let running = 0;
    let most = 0;
    const seen: string[] = [];
    await events.subscribe(
      'parallel',
      async (e) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 30));
        running -= 1;
        seen.push(e.id);
      },
      { concurrency: 4, blockMs: 50 },
    );
    const ids = Array.from({ length: 12 }, (_, i) => `p${i}`);
    for (const id of ids) await events.publish({ id, type: 'work', payload: {} });
    await until('all events', () => seen.length === 12);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    assert.ok(most > 1 && most <= 4, `${most} at once`);
    await events.close();
  });

  it('filters by event type', async () => {
    const events = bus();
    const seen: string[] = [];
    await events.subscribe('typed', async (e) => void seen.push(e.type), { types: ['wanted'], blockMs: 50 });
    await events.publish({ type: 'ignored', payload: {} });
    await events.publish({ type: 'wanted', payload: {} });
    await until('wanted', () => seen.length === 1);
    assert.deepEqual(seen, ['wanted']);
    await events.close();
  });
});

describe('job queues on BullMQ', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await testEnvironment();
  });
  afterAll(() => cleanupTestEnvironment(env));

  it('runs a job and reports its state and result', async () => {
    const queue = createJobQueue<{ n: number }, { doubled: number }>('double', { redisUrl: env.redisUrl, prefix: env.redisPrefix, logger });
    queue.work(async (job) => {
      await job.updateProgress(50);
      return { doubled: job.data.n * 2 };
    });
    const id = await queue.add({ n: 21 });
    let state = await queue.state(id);
    const deadline = Date.now() + 10_000;
    while (state?.state !== 'completed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      state = await queue.state(id);
    }
    assert.equal(state?.state, 'completed');
    assert.deepEqual(state?.result, { doubled: 42 });
    assert.equal(state?.progress, 50);
    assert.ok(state?.finishedAt);
    assert.equal(await queue.state('no-such-job'), undefined);
    await queue.close();
  });

  it('retries a failing job with backoff and records why it failed', async () => {
    const queue = createJobQueue<object, void>('flaky', {
      redisUrl: env.redisUrl,
      prefix: env.redisPrefix,
      logger,
      defaultJobOptions: { attempts: 2, backoff: { type: 'fixed', delay: 50 } },
    });
    let calls = 0;
    queue.work(async () => {
      calls++;
      throw new Error('remote refused');
    });
    const id = await queue.add({});
    let state = await queue.state(id);
    const deadline = Date.now() + 10_000;
    while (state?.state !== 'failed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      state = await queue.state(id);
    }
    assert.equal(state?.state, 'failed');
    assert.equal(state?.attemptsMade, 2);
    assert.equal(calls, 2);
    assert.equal(state?.failedReason, 'remote refused');
    await queue.close();
  });

  it('enqueues a job id once while it exists', async () => {
    const queue = createJobQueue<object, void>('unique', { redisUrl: env.redisUrl, prefix: env.redisPrefix, logger });
    const first = await queue.add({}, { jobId: 'git-import-space-1' });
    const second = await queue.add({}, { jobId: 'git-import-space-1' });
    assert.equal(first, second);
    assert.equal((await queue.state(first))?.state, 'waiting');
    await queue.close();
  });
});
