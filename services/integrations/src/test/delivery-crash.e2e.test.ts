import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import type { Database } from '@quire/runtime';
import { expectOk, startTestStack, waitFor, type ApiClient, type TestStack } from '@quire/testkit';
import type { IntegrationEventDoc } from '../db/models';
import { startTunnelRecorder, type ReceivedDelivery, type TunnelRecorder } from './tunnel-recorder';

/*
 * The integrations service killed (SIGKILL) while deliveries are in flight, then restarted by
 * the stack's supervisor as `npm start` does: every event ends delivered exactly once.
 *
 * What "exactly once" means under at-least-once delivery. A delivery the crash cut after the
 * receiver got it but before the service recorded its outcome is sent again after the restart:
 * the receiver sees that event id twice. So the guarantee is:
 *   - the platform: one record per event, which ends `success`, with exactly one successful
 *     answer in its trace (success is recorded once, never re-run);
 *   - the receiver, deduplicating by event id (as GitBook's `eventId` is meant for): each
 *     event is handled once, and each one is handled (acknowledged) at all;
 *   - a second delivery of an id happens only for an event that was still pending when the
 *     service died (its first delivery was cut), and never twice after the restart; an event
 *     whose success was recorded before the crash is never sent again.
 */

/** Each answer of the receiver waits this long: several deliveries are mid-flight at any time. */
const HOLD_MS = 200;
const WRITERS = 4;
const UPDATES_PER_WRITER = 10;
/** Deliveries the receiver must have seen before the kill. */
const SEEN_BEFORE_KILL = 6;

const SCRIPT = 'export default { async fetch() { return new Response("ok"); } };';

describe('integrations: a crash mid-delivery loses and repeats nothing', () => {
  let stack: TestStack;
  let api: ApiClient;
  let organizationId: string;
  let tunnel: TunnelRecorder;
  let db: Database;
  const NAME = 'crash-recorder';
  const base = `/v1/integrations/${NAME}`;

  const listEvents = async () => expectOk(await api.get(`${base}/events?limit=1000`)).items as any[];

  beforeAll(async () => {
    tunnel = await startTunnelRecorder({ holdMs: HOLD_MS });
    stack = await startTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true', JOB_LOCK_MS: '6000', JOB_STALLED_CHECK_MS: '3000', DELIVERY_SWEEP_MS: '5000' });
    const owner = await stack.account(['bootstrap', '--email', 'admin@crash.test', '--org', 'Crash vendor']);
    api = owner.api;
    organizationId = owner.organizationId;
    db = await stack.serviceDatabase('integrations');
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
    await tunnel?.close();
  });

  it('delivers every event once by id after the integrations service is killed mid-delivery and restarted', async () => {
    // A dev-mode integration installed on every space of the organization: its events go to the tunnel.
    expectOk(
      await api.post(base, {
        organization: organizationId,
        title: 'Crash recorder',
        description: 'Slow receiver',
        scopes: ['space:content:read'],
        script: SCRIPT,
      }),
    );
    assert.equal((await api.put(`${base}/dev`, { tunnelUrl: tunnel.url })).status, 204);
    const installation = expectOk(await api.post(`${base}/installations`, { organization: organizationId }), 201);
    expectOk(await api.patch(`${base}/installations/${installation.id}`, { space_selection: 'all' }));
    const spaces: string[] = [];
    for (let i = 0; i < WRITERS; i++) spaces.push(expectOk(await api.post(`/v1/orgs/${organizationId}/spaces`, { title: `Crash ${i}` }), 201).id);
    await waitFor('the installation events delivered', async () => (await listEvents()).filter((event) => event.status === 'success').length === 2);
    const seenBefore = tunnel.received.length;
    const contentUpdates = () => tunnel.received.slice(seenBefore);

    // Writers move the content of their space again and again (each time one space_content_updated),
    // through the kill and the restart: content does not depend on integrations.
    const revisions: string[] = [];
    const writtenAt: number[] = [];
    const writers = Promise.all(
      spaces.map(async (spaceId) => {
        for (let i = 0; i < UPDATES_PER_WRITER; i++) {
          expectOk(await api.post(`/v1/spaces/${spaceId}/content/template`, { id: 'getting-started' }), 201);
          writtenAt.push(performance.now());
          revisions.push(expectOk(await api.get(`/v1/spaces/${spaceId}`)).revision);
        }
      }),
    );
    writers.catch(() => {}); // awaited below: a failed write fails the test there

    // Killed once a few deliveries went through and while some are mid-flight (received, unanswered).
    const [before] = stack.servicePids('integrations');
    assert.ok(before, 'the stack runs an integrations process');
    const inFlight = () => contentUpdates().filter((delivery) => delivery.answeredAt === undefined && !delivery.cut);
    const waitStarted = Date.now();
    while (!(contentUpdates().length >= SEEN_BEFORE_KILL && inFlight().length > 0)) {
      assert.ok(Date.now() - waitStarted < 60_000, `no delivery in flight after a minute (${contentUpdates().length} received)`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    process.kill(before, 'SIGKILL');
    const killedAt = performance.now();
    const crashed = Date.now();
    const inFlightAtKill = inFlight().map((delivery) => delivery.event.eventId);
    // Nothing else writes the service's events: what is `success` now was recorded before the crash.
    const recordedBeforeCrash = new Set(
      (
        await db
          .collection<IntegrationEventDoc>('integration_events')
          .find({ integrationName: NAME, status: 'success' }, { projection: { _id: 1 } })
          .toArray()
      ).map((row) => row._id),
    );
    const snapshotMs = performance.now() - killedAt;

    // The new process exists from here on, and takes far longer than a poll to boot: what the
    // receiver got before this moment was sent by the killed one (the receiver runs in this
    // process, so it may read a request the killed process sent after `killedAt`).
    await waitFor('the supervisor to restart integrations', async () => stack.servicePids('integrations').some((pid) => pid !== before), 30_000);
    const restartedAt = performance.now();
    await writers;
    assert.equal(new Set(revisions).size, WRITERS * UPDATES_PER_WRITER, 'each write made a revision of its own');
    const expected = WRITERS * UPDATES_PER_WRITER + 2;
    // Until the new process serves, the gateway answers 503; any other failure ends the wait.
    let events: any[] = [];
    let failure: { status: number; body: unknown } | undefined;
    await waitFor(
      `${expected} events delivered`,
      async () => {
        const answer = await api.get(`${base}/events?limit=1000`);
        if (answer.status === 503) return false;
        if (answer.status !== 200) failure = answer;
        events = answer.body.items ?? [];
        return !!failure || (events.length >= expected && events.every((event) => event.status));
      },
      // BullMQ runs a dead worker's jobs again once their lock (30 s) expired and two of its
      // stalled checks (every 30 s) saw them: 30 to 90 s after the crash.
      150_000,
    );
    assert.equal(failure, undefined, 'listing the events failed');
    const recoveredMs = Date.now() - crashed;

    // The platform: one record per event, each a success recorded once.
    assert.equal(events.length, expected, 'one event per installation change and per revision');
    const ids = events.map((event) => event.id as string);
    assert.equal(new Set(ids).size, ids.length, 'no event listed twice');
    for (const event of events) assert.equal(event.status, 'success', `${event.id} ${event.payload.type}`);
    const updates = events.filter((event) => event.payload.type === 'space_content_updated');
    assert.deepEqual(updates.map((event) => event.payload.revisionId).sort(), [...revisions].sort(), 'one event per revision');
    const rows = await db
      .collection<IntegrationEventDoc>('integration_events')
      .find({ integrationName: NAME }, { projection: { _id: 1, logs: 1 } })
      .toArray();
    for (const row of rows) {
      const successes = row.logs.filter((log) => /^The tunnel answered 2\d\d /.test(log.message)).length;
      assert.equal(successes, 1, `${row._id}: one successful answer recorded (${row.logs.map((log) => log.message).join(' | ')})`);
    }

    // The receiver, deduplicating by event id: it handles an event on its first acknowledged
    // delivery and answers any later one without handling it again. Handled exactly once: the
    // acknowledged ids are exactly the listed events.
    const byId = new Map<string, ReceivedDelivery[]>();
    for (const delivery of tunnel.received) byId.set(delivery.event.eventId, [...(byId.get(delivery.event.eventId) ?? []), delivery]);
    const handled = new Set([...byId].filter(([, deliveries]) => deliveries.some((delivery) => delivery.acknowledged)).map(([id]) => id));
    assert.deepEqual([...handled].sort(), [...ids].sort(), 'the receiver acknowledged every event, and only those');

    // Sent again: only events still pending at the crash, first sent by the killed process; never twice after the restart.
    const repeated = [...byId].filter(([, deliveries]) => deliveries.length > 1);
    for (const [id, deliveries] of repeated) {
      assert.ok(!recordedBeforeCrash.has(id), `${id} was sent again although its success was recorded before the crash`);
      assert.ok(deliveries[0].receivedAt < restartedAt, `${id}: first sent by the killed process`);
      assert.equal(deliveries.filter((delivery) => delivery.receivedAt > restartedAt).length, 1, `${id} was sent once after the restart`);
    }
    for (const id of recordedBeforeCrash)
      assert.ok(
        byId.get(id)!.every((delivery) => delivery.receivedAt < restartedAt),
        `${id} not sent after the restart`,
      );
    const cut = tunnel.received.filter((delivery) => delivery.cut).map((delivery) => delivery.event.eventId);
    for (const id of cut) assert.ok(handled.has(id), `${id}, cut by the crash, was delivered again`);
    // Those the receiver held when the process died were mid-delivery: their outcome was never recorded.
    assert.ok(inFlightAtKill.length > 0);
    for (const id of inFlightAtKill) assert.ok(byId.get(id)!.length >= 2, `${id}, in flight at the kill, was sent again`);
    assert.match(stack.output(), /integrations exited \(SIGKILL\)/);
    console.log(
      `crash: ${expected} events (${writtenAt.filter((at) => at > killedAt).length} written after the kill), ` +
        `${inFlightAtKill.length} in flight at the kill (${cut.length} cut), ${repeated.length} sent again, ` +
        `${recordedBeforeCrash.size} recorded before the crash (read ${snapshotMs.toFixed(0)} ms after it), all delivered ${recoveredMs} ms after it`,
    );
  });
});
