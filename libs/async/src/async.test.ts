import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { createLogger, newId, type Logger } from '@quire/runtime';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { createEventBus, defineEvent, type EventOf } from './events';
import { createJobQueue } from './jobs';

const logger = createLogger('async-test', 'silent');

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const work = defineEvent('test.work', z.object({ n: z.number() }));
const note = defineEvent('test.note', z.object({ text: z.string(), lang: z.string().optional() }));

describe('event bus on Redis Streams', () => {
  let env: TestEnvironment;
  let redis: Redis;
  beforeAll(async () => {
    env = await testEnvironment();
    redis = new Redis(env.redisUrl);
  });
  afterAll(async () => {
    redis?.disconnect();
    await cleanupTestEnvironment(env);
  });

  /** How many events the group has read and not acknowledged. */
  const pending = async (prefix: string, group: string) => ((await redis.xpending(`${prefix}events`, group)) as [number])[0];
  const bus = (prefix = `${env.redisPrefix}${newId(6)}:`, busLogger: Logger = logger) => createEventBus({ redisUrl: env.redisUrl, prefix, logger: busLogger });

  it('delivers every event to every group, once per group', async () => {
    const events = bus();
    const a: number[] = [];
    const b: number[] = [];
    await events.subscribe('group-a', [work], async (e) => void a.push(e.payload.n), { blockMs: 50 });
    await events.subscribe('group-b', [work], async (e) => void b.push(e.payload.n), { blockMs: 50 });
    for (const n of [1, 2, 3]) await events.publish(work, { n });
    await until('both groups', () => a.length === 3 && b.length === 3);
    assert.deepEqual(a, [1, 2, 3]);
    assert.deepEqual(b, [1, 2, 3]);
    await events.close();
  });

  it('redelivers an event whose handler failed (at least once)', async () => {
    const events = bus();
    let attempts = 0;
    const done: number[] = [];
    await events.subscribe(
      'flaky',
      [work],
      async (e) => {
        if (++attempts === 1) throw new Error('first attempt fails');
        done.push(e.payload.n);
      },
      { retryAfterMs: 100, blockMs: 50 },
    );
    await events.publish(work, { n: 1 });
    await until('redelivery', () => done.includes(1));
    assert.equal(attempts, 2);
    await events.close();
  });

  it('processes an event id once, even when published twice', async () => {
    const events = bus();
    const seen: Array<EventOf<typeof work>> = [];
    await events.subscribe('idempotent', [work], async (e) => void seen.push(e), { blockMs: 50 });
    await events.publish(work, { n: 1 }, { id: 'evt-1' });
    await events.publish(work, { n: 1 }, { id: 'evt-1' });
    await events.publish(work, { n: 2 }, { id: 'evt-2' });
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
      await events.subscribe('shared', [work], async (e) => void byConsumer[consumer].push(e.id), { consumer, blockMs: 50 });
    }
    const ids = Array.from({ length: 40 }, (_, i) => `e${i}`);
    for (const id of ids) await events.publish(work, { n: 0 }, { id });
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
      [work],
      async (e) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 30));
        running -= 1;
        seen.push(e.id);
      },
      { concurrency: 4, blockMs: 50 },
    );
    const ids = Array.from({ length: 12 }, (_, i) => `p${i}`);
    for (const id of ids) await events.publish(work, { n: 0 }, { id });
    await until('all events', () => seen.length === 12);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    assert.ok(most > 1 && most <= 4, `${most} at once`);
    await events.close();
  });

  it('handles every event it read before it stops: none is left pending for another consumer to claim later', async () => {
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const publisher = bus(prefix);
    // Published first: the subscription's first read takes them all in one batch.
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) await publisher.publish(work, { n });
    const stopping = bus(prefix);
    const handled: number[] = [];
    let started!: () => void;
    const first = new Promise<void>((resolve) => (started = resolve));
    const subscription = await stopping.subscribe(
      'stopping',
      [work],
      async (e) => {
        started();
        await new Promise((r) => setTimeout(r, 20));
        handled.push(e.payload.n);
      },
      { blockMs: 50 },
    );
    await first;
    await subscription.stop();
    // The batch it read was handled and acknowledged before it stopped.
    assert.deepEqual(handled, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(await pending(prefix, 'stopping'), 0);
    await Promise.all([stopping.close(), publisher.close()]);
  });

  it('hands a subscriber only the events it names, each with its parsed payload', async () => {
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const events = bus(prefix);
    const seen: string[] = [];
    await events.subscribe(
      'typed',
      [work, note],
      async (e) => {
        // Discriminated by type: each payload is its definition's.
        if (e.type === 'test.work') seen.push(`work ${e.payload.n.toFixed(1)}`);
        else seen.push(`note ${e.payload.text} ${e.payload.lang ?? '-'} ${Object.keys(e.payload).join(',')}`);
      },
      { blockMs: 50 },
    );
    await events.publish(defineEvent('test.ignored', z.object({})), {});
    await events.publish(work, { n: 2 });
    // An event as stored on the stream (the wire format): what the schema does not name is left out.
    const stored = { id: 'stored-1', type: 'test.note', organizationId: 'org-1', occurredAt: new Date().toISOString(), payload: { text: 'hi', extra: 'x' } };
    await redis.xadd(`${prefix}events`, '*', 'event', JSON.stringify(stored));
    await until('both events', () => seen.length === 2);
    assert.deepEqual(seen, ['work 2.0', 'note hi - text']);
    // The ignored one too (the last is acknowledged just after its handler returns).
    await until('all acknowledged', async () => (await pending(prefix, 'typed')) === 0);
    await events.close();
  });

  it('logs and acknowledges once an event whose payload does not parse, and goes on', async () => {
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const errors: Array<{ fields: Record<string, unknown>; message?: string }> = [];
    const capturing = createLogger('async-test', 'silent').child({});
    capturing.error = ((fields: Record<string, unknown>, message?: string) => void errors.push({ fields, message })) as Logger['error'];
    const events = bus(prefix, capturing);
    const seen: number[] = [];
    let calls = 0;
    await events.subscribe(
      'strict',
      [work],
      async (e) => {
        calls += 1;
        seen.push(e.payload.n);
      },
      { retryAfterMs: 100, blockMs: 50 },
    );
    // A producer's bug, written past publish's check: `n` is no number.
    const malformed = { id: 'bad-1', type: 'test.work', occurredAt: new Date().toISOString(), payload: { n: 'secret-value' } };
    await redis.xadd(`${prefix}events`, '*', 'event', JSON.stringify(malformed));
    await events.publish(work, { n: 7 });
    await until('the next event', () => seen.length === 1);
    // Well past retryAfterMs: it was acknowledged, so it is never claimed again.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(seen, [7]);
    assert.equal(calls, 1, 'the handler never saw it');
    assert.deepEqual(errors, [
      {
        fields: { eventId: 'bad-1', type: 'test.work', group: 'strict', issues: ['n: invalid_type'] },
        message: 'dropping an event whose payload does not match its definition',
      },
    ]);
    assert.ok(!JSON.stringify(errors).includes('secret-value'), 'never its values');
    await until('all acknowledged', async () => (await pending(prefix, 'strict')) === 0);
    await events.close();
  });

  it('passes the entries of types a group does not take without reading them, and reads those that do not say their type', async () => {
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const errors: string[] = [];
    const capturing = createLogger('async-test', 'silent').child({});
    capturing.error = ((_fields: Record<string, unknown>, message?: string) => void errors.push(message ?? '')) as Logger['error'];
    const events = bus(prefix, capturing);
    const seen: number[] = [];
    await events.subscribe('only-work', [work], async (e) => void seen.push(e.payload.n), { blockMs: 50 });
    // publish writes the type beside the event: an entry of another type is acknowledged unread (this one is no event at all).
    await redis.xadd(`${prefix}events`, '*', 'event', 'not json', 'type', 'test.note');
    // One without its type (written before types were) is read: this one is unreadable, so it is logged.
    await redis.xadd(`${prefix}events`, '*', 'event', 'not json either');
    await events.publish(work, { n: 3 });
    await until('the work event', () => seen.length === 1);
    await until('all acknowledged', async () => (await pending(prefix, 'only-work')) === 0);
    assert.deepEqual(seen, [3]);
    assert.deepEqual(errors, ['dropping an unreadable event']);
    const last = (await redis.xrevrange(`${prefix}events`, '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
    assert.deepEqual(last[0][1].slice(2, 4), ['type', 'test.work']);
    await events.close();
  });

  it('carries an event defined on a stream of its own there: a group that does not take it never reads that stream', async () => {
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const loud = defineEvent('test.loud', z.object({ n: z.number() }), { stream: 'loud' });
    const events = bus(prefix);
    const quiet: number[] = [];
    const both: string[] = [];
    await events.subscribe('quiet', [work], async (e) => void quiet.push(e.payload.n), { blockMs: 50 });
    await events.subscribe('both', [work, loud], async (e) => void both.push(`${e.type} ${e.payload.n}`), { blockMs: 50 });
    // Published before a group takes it: a group new to the stream still gets it.
    await events.publish(loud, { n: 1 });
    await events.publish(work, { n: 2 });
    const late: number[] = [];
    await events.subscribe('late', [loud], async (e) => void late.push(e.payload.n), { blockMs: 50 });
    await events.publish(loud, { n: 3 });
    await until('every delivery', () => both.length === 3 && quiet.length === 1 && late.length === 2);
    assert.deepEqual(quiet, [2]);
    assert.deepEqual(both.sort(), ['test.loud 1', 'test.loud 3', 'test.work 2']);
    assert.deepEqual(late, [1, 3]);
    assert.deepEqual([await redis.xlen(`${prefix}events`), await redis.xlen(`${prefix}loud`)], [1, 2]);
    const groupsOf = async (stream: string) => ((await redis.xinfo('GROUPS', `${prefix}${stream}`)) as string[][]).map((fields) => fields[1]).sort();
    assert.deepEqual(await groupsOf('loud'), ['both', 'late']);
    assert.deepEqual(await groupsOf('events'), ['both', 'quiet']);
    await until(
      'all acknowledged',
      async () => (await pending(prefix, 'both')) === 0 && ((await redis.xpending(`${prefix}loud`, 'both')) as [number])[0] === 0,
    );
    await events.close();
  });

  it('rejects a publish whose payload does not match its definition, publishing nothing', async () => {
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const events = bus(prefix);
    const wrong = { n: 'one' } as unknown as { n: number };
    await assert.rejects(events.publish(work, wrong), /The payload of test\.work does not match its definition \(n: invalid_type\)/);
    await assert.rejects(events.publish(note, { lang: 'en' } as unknown as { text: string }), /text: invalid_type/);
    assert.equal(await redis.xlen(`${prefix}events`), 0);
    await events.close();
  });
});

describe('job queues on BullMQ', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await testEnvironment();
  });
  afterAll(() => cleanupTestEnvironment(env));

  /** The value of quire_jobs_total for a queue and an outcome. */
  const jobsCounted = async (metrics: Registry, queue: string, outcome: string) =>
    (await metrics.getSingleMetric('quire_jobs_total')?.get())?.values.find((value) => value.labels.queue === queue && value.labels.outcome === outcome)
      ?.value ?? 0;

  it('runs a job and reports its state and result', async () => {
    const metrics = new Registry();
    const queue = createJobQueue<{ n: number }, { doubled: number }>('double', { redisUrl: env.redisUrl, prefix: env.redisPrefix, logger, metrics });
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
    await until('the completion to be counted', async () => (await jobsCounted(metrics, 'double', 'completed')) === 1);
    assert.equal(await jobsCounted(metrics, 'double', 'failed'), 0);
    await queue.close();
  });

  it('retries a failing job with backoff and records why it failed', async () => {
    const metrics = new Registry();
    const queue = createJobQueue<object, void>('flaky', {
      redisUrl: env.redisUrl,
      prefix: env.redisPrefix,
      logger,
      metrics,
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
    // The worker counts an attempt when BullMQ tells it the attempt failed, a moment after the state says so.
    for (const until = Date.now() + 2_000; (await jobsCounted(metrics, 'flaky', 'failed')) < 2 && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(await jobsCounted(metrics, 'flaky', 'failed'), 2, 'each failed attempt counted');
    assert.equal(await jobsCounted(metrics, 'flaky', 'completed'), 0);
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
