import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { createLogger, gaugeOf, newId } from '@quire/runtime';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { createEventBus, defineEvent } from './events';
import { createJobQueue } from './jobs';

/** What queues and event streams report at a scrape, against the real Redis, each test under prefixes of its own. */

const logger = createLogger('async-metrics-test', 'silent');
const work = defineEvent('test.work', z.object({ n: z.number() }));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The value of a sample in a scrape's text (undefined: no such sample). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics of queues and event streams, read at each scrape', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await testEnvironment();
  });
  afterAll(() => cleanupTestEnvironment(env));

  it("reports every queue of a registry by state, and the age of each one's oldest waiting job", async () => {
    const metrics = new Registry();
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const first = createJobQueue<{ n: number }, void>('metrics-first', { redisUrl: env.redisUrl, prefix, logger, metrics });
    const second = createJobQueue<{ n: number }, void>('metrics-second', { redisUrl: env.redisUrl, prefix, logger, metrics });
    for (const n of [1, 2, 3]) await first.add({ n });
    await second.add({ n: 4 });
    await new Promise((r) => setTimeout(r, 50));

    const text = await metrics.metrics();
    assert.equal(sample(text, 'quire_queue_jobs{queue="metrics-first",state="waiting"}'), 3);
    assert.equal(sample(text, 'quire_queue_jobs{queue="metrics-second",state="waiting"}'), 1);
    for (const state of ['active', 'delayed', 'failed', 'prioritized'])
      assert.equal(sample(text, `quire_queue_jobs{queue="metrics-first",state="${state}"}`), 0, state);
    const age = sample(text, 'quire_queue_oldest_waiting_age_seconds{queue="metrics-first"}');
    assert.ok(age !== undefined && age > 0 && age < 60, `oldest waiting age ${age}`);

    // Once its jobs ran, nothing waits.
    first.work(async () => undefined);
    await until('the jobs to complete', async () => sample(await metrics.metrics(), 'quire_queue_jobs{queue="metrics-first",state="waiting"}') === 0);
    assert.equal(sample(await metrics.metrics(), 'quire_queue_oldest_waiting_age_seconds{queue="metrics-first"}'), 0);

    // A queue closed is no longer reported.
    await second.close();
    assert.equal(sample(await metrics.metrics(), 'quire_queue_jobs{queue="metrics-second",state="waiting"}'), undefined);
    await first.close();
  });

  it("counts a fair queue's jobs waiting for their turn as waiting", async () => {
    const metrics = new Registry();
    const prefix = `${env.redisPrefix}${newId(6)}:`;
    const fairness = { tenantOf: (job: { organizationId: string }) => job.organizationId };
    const queue = createJobQueue<{ organizationId: string }, void>('metrics-fair', { redisUrl: env.redisUrl, prefix, logger, metrics, fairness });
    for (const organizationId of ['org-a', 'org-a', 'org-b']) await queue.add({ organizationId });
    await new Promise((r) => setTimeout(r, 50));

    const text = await metrics.metrics();
    assert.equal(sample(text, 'quire_queue_jobs{queue="metrics-fair",state="waiting"}'), 3);
    assert.equal(sample(text, 'quire_queue_jobs{queue="metrics-fair",state="prioritized"}'), 0);
    const age = sample(text, 'quire_queue_oldest_waiting_age_seconds{queue="metrics-fair"}');
    assert.ok(age !== undefined && age > 0 && age < 60, `oldest waiting age ${age}`);
    await queue.close();
  });

  it('leaves out of a scrape what could not be read, and reports the rest', async () => {
    const metrics = new Registry();
    const queue = createJobQueue<object, void>('metrics-readable', { redisUrl: env.redisUrl, prefix: `${env.redisPrefix}${newId(6)}:`, logger, metrics });
    await queue.add({});
    // Another reader of the same gauge whose datastore fails.
    gaugeOf(metrics, { name: 'quire_queue_jobs', help: '', labelNames: ['queue', 'state'] as const }, () => Promise.reject(new Error('Connection is closed.')));

    const text = await metrics.metrics();
    assert.equal(sample(text, 'quire_queue_jobs{queue="metrics-readable",state="waiting"}'), 1);
    await queue.close();
  });

  it('reports the entries a consumer group has not been delivered yet, and those it has not acknowledged', async () => {
    const metrics = new Registry();
    const events = createEventBus({ redisUrl: env.redisUrl, prefix: `${env.redisPrefix}${newId(6)}:`, logger, metrics });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const handled: number[] = [];
    await events.subscribe(
      'lagging',
      [work],
      async (event) => {
        // The first event holds the consumer: what is published meanwhile stays undelivered.
        if (event.payload.n === 0) await held;
        handled.push(event.payload.n);
      },
      { blockMs: 50 },
    );
    await events.publish(work, { n: 0 });
    await until(
      'the first event to be delivered',
      async () => sample(await metrics.metrics(), 'quire_event_stream_pending{stream="events",group="lagging"}') === 1,
    );
    for (const n of [1, 2, 3]) await events.publish(work, { n });

    const text = await metrics.metrics();
    assert.equal(sample(text, 'quire_event_stream_lag{stream="events",group="lagging"}'), 3);
    assert.equal(sample(text, 'quire_event_stream_pending{stream="events",group="lagging"}'), 1);

    release();
    await until('every event to be handled', () => handled.length === 4);
    await until(
      'every event to be acknowledged',
      async () => sample(await metrics.metrics(), 'quire_event_stream_pending{stream="events",group="lagging"}') === 0,
    );
    assert.equal(sample(await metrics.metrics(), 'quire_event_stream_lag{stream="events",group="lagging"}'), 0);
    await events.close();
  });
});
