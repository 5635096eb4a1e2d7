import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { apiClient, successBody, type ApiClient, type TestStack } from '@quire/testkit';
import { startFloorProcess } from './bench-request-path';
import { quantile } from './bench-stats';

/*
 * `npm run bench -- integrations`: delivery of integration events, from the write that emits one
 * to the integration's script handling it. The caller's stack must let scripts reach loopback
 * (INTEGRATIONS_ALLOW_PRIVATE_NETWORKS).
 *
 * An integration is published whose script POSTs the event's key to a receiver in this process
 * (its only work), and installed on every space of an organization. Each event is a content
 * update: the template `getting-started` applied to a space (one write, one new revision, one
 * `space_content_updated`); its latency runs from the write's answer to the receiver's receipt.
 * Measured one at a time (a lone event), then as a burst of BURST events written by WRITERS
 * clients at once (latency under load and throughput: events handled per second from the first
 * write to the last receipt).
 *
 * The same again with the integration in dev mode: its events go to the receiver as a tunnel
 * (GitBook's dispatch, a signed multipart POST) instead of to its script.
 *
 * The floor, started in the same run and measured the same way (bench-floor.js delivery): the
 * least a delivery costs with Quire's transport (the write acknowledged once on the Redis stream,
 * a consumer queueing a BullMQ job, a worker POSTing it to the receiver). The ratios are Quire's
 * own work: the content write's event, the integration event rows, installations, signing and
 * the script's run in its sandbox (or the dispatch to the tunnel).
 */

const WARMUP = 5;
const LONE = 30;
const BURST = 200;
const WRITERS = 8;
const RECEIPT_TIMEOUT_MS = 60_000;

/** The script: tells the receiver which event it handled (the revision of a content update). */
export const receiptScript = (receiver: string) => `const RECEIVER = ${JSON.stringify(receiver)};
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const answer = await fetch(RECEIVER, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: event.revisionId || event.eventId }),
    });
    return new Response(answer.ok ? 'ok' : 'receiver refused', { status: answer.ok ? 200 : 502 });
  },
};`;

/**
 * Receipt times (performance.now()) by key, and a way to wait for one. A key comes as JSON
 * (`{ "key": … }`: the script's report, the floor's POST) or as a dispatched event (a tunnel's
 * multipart body: its revision, else its id).
 */
export interface Receiver {
  url: string;
  received(key: string): Promise<number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const times = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const at = performance.now();
      try {
        const body = Buffer.concat(chunks);
        const type = req.headers['content-type'] ?? '';
        const key = type.startsWith('multipart/form-data')
          ? eventKey(JSON.parse(String((await new Response(body, { headers: { 'content-type': type } }).formData()).get('event'))))
          : (JSON.parse(body.toString('utf8')) as { key: string }).key;
        if (!times.has(key)) times.set(key, at);
        waiters.get(key)?.(times.get(key)!);
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/receipt`,
    received(key) {
      const at = times.get(key);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`event ${key} not handled within ${RECEIPT_TIMEOUT_MS} ms`)), RECEIPT_TIMEOUT_MS);
        waiters.set(key, (time) => {
          clearTimeout(timer);
          waiters.delete(key);
          resolve(time);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const eventKey = (event: { revisionId?: string; eventId: string }) => event.revisionId || event.eventId;

/** One emitting write: when it was answered, and the key its event will carry. */
type Emit = (writer: number) => Promise<{ ackedAt: number; key: string }>;

interface DeliveryResult {
  lone: number[];
  burst: number[];
  /** Events handled per second in the burst, from its first write to its last receipt. */
  eventsPerSecond: number;
  /** Writes answered per second in the burst (the rate events were emitted at). */
  writesPerSecond: number;
}

async function measureDeliveries(emit: Emit, receiver: Receiver): Promise<DeliveryResult> {
  const one = async (writer: number) => {
    const { ackedAt, key } = await emit(writer);
    return { ackedAt, receipt: receiver.received(key) };
  };
  for (let i = 0; i < WARMUP; i++) await (await one(0)).receipt;
  const lone: number[] = [];
  for (let i = 0; i < LONE; i++) {
    const { ackedAt, receipt } = await one(0);
    lone.push((await receipt) - ackedAt);
  }
  const started = performance.now();
  const emitted: Array<{ ackedAt: number; receipt: Promise<number> }> = [];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let i = writer; i < BURST; i += WRITERS) emitted.push(await one(writer));
    }),
  );
  const written = performance.now();
  const receipts = await Promise.all(emitted.map(({ receipt }) => receipt));
  const burst = emitted.map(({ ackedAt }, i) => receipts[i] - ackedAt);
  return {
    lone,
    burst,
    eventsPerSecond: BURST / ((Math.max(...receipts) - started) / 1000),
    writesPerSecond: BURST / ((written - started) / 1000),
  };
}

/**
 * Quire: template applies on spaces of an organization where the recording integration is
 * installed everywhere; its events handled by its script, or sent to the receiver as its tunnel.
 */
async function quireEmitter(stack: Pick<TestStack, 'baseUrl' | 'cli'>, receiver: Receiver, to: 'script' | 'tunnel'): Promise<Emit> {
  const owner = await stack.cli(['bootstrap', '--email', `bench-integrations-${Date.now()}@bench.test`, '--org', 'Bench integrations', '--json']);
  const api: ApiClient = apiClient(stack.baseUrl, owner.token);
  const name = `bench-recorder-${Date.now().toString(36)}`;
  successBody(
    await api.post(`/v1/integrations/${name}`, {
      organization: owner.organizationId,
      title: 'Bench recorder',
      description: 'Tells a receiver which event it handled',
      scopes: ['space:content:read'],
      script: receiptScript(receiver.url),
    }),
    'publish the integration',
  );
  if (to === 'tunnel') {
    const dev = await api.put(`/v1/integrations/${name}/dev`, { tunnelUrl: receiver.url });
    if (dev.status !== 204) throw new Error(`dev mode: ${dev.status} ${JSON.stringify(dev.body)}`);
  }
  const installation = successBody(await api.post(`/v1/integrations/${name}/installations`, { organization: owner.organizationId }), 'install');
  successBody(await api.patch(`/v1/integrations/${name}/installations/${installation.id}`, { space_selection: 'all' }), 'install on every space');
  const spaces: string[] = [];
  for (let i = 0; i < WRITERS; i++)
    spaces.push(successBody(await api.post(`/v1/orgs/${owner.organizationId}/spaces`, { title: `Bench events ${i}` }), 'create space').id);
  const keys = new Set<string>();
  return async (writer) => {
    const spaceId = spaces[writer];
    successBody(await api.post(`/v1/spaces/${spaceId}/content/template`, { id: 'getting-started' }), 'apply a template');
    const ackedAt = performance.now();
    // The writer is the space's only one: its revision now is the one this write made.
    const key = successBody(await api.get(`/v1/spaces/${spaceId}`), 'read the space').revision as string;
    if (keys.has(key)) throw new Error(`revision ${key} read twice: the write made no revision of its own`);
    keys.add(key);
    return { ackedAt, key };
  };
}

/** The floor: POST /emit with a key, acknowledged once on the stream. */
function floorEmitter(url: string): Emit {
  let next = 0;
  return async () => {
    const key = `floor-${++next}`;
    const answer = await fetch(`${url}/emit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
    if (answer.status !== 204) throw new Error(`the floor answered ${answer.status}`);
    return { ackedAt: performance.now(), key };
  };
}

export async function benchIntegrations(
  stack: Pick<TestStack, 'baseUrl' | 'cli' | 'env'>,
  options: { log?: (line: string) => void } = {},
): Promise<Record<string, number>> {
  const log = options.log ?? ((line: string) => console.log(line));
  const receiver = await startReceiver();
  const floorProcess = await startFloorProcess(['delivery', receiver.url], {
    REDIS_URL: stack.env.redisUrl,
    // Under the stack's prefix: removed with the stack's keys.
    REDIS_PREFIX: `${stack.env.redisPrefix}bench-floor:`,
  });
  try {
    const floor = await measureDeliveries(floorEmitter(`http://127.0.0.1:${floorProcess.port}`), receiver);
    const quire = await measureDeliveries(await quireEmitter(stack, receiver, 'script'), receiver);
    const tunnel = await measureDeliveries(await quireEmitter(stack, receiver, 'tunnel'), receiver);
    const results: Record<string, number> = {};
    const row = (label: string, quireValue: number, floorValue: number, unit: string) => {
      results[label] = quireValue;
      results[`${label} (floor)`] = floorValue;
      const ratio = unit === 'events/s' ? floorValue / quireValue : quireValue / floorValue;
      log(
        `${label.padEnd(58)} ${quireValue.toFixed(1).padStart(8)} ${unit.padEnd(8)} floor ${floorValue.toFixed(1).padStart(7)} ${unit.padEnd(8)} ×${ratio.toFixed(1)}`,
      );
    };
    log(`integration delivery: write answered → script handled (floor: stream → queue → POST; ×: Quire / floor, events/s: floor / Quire)`);
    row(`lone event, p50 (n=${LONE})`, quantile(quire.lone, 0.5), quantile(floor.lone, 0.5), 'ms');
    row(`lone event, p95 (n=${LONE})`, quantile(quire.lone, 0.95), quantile(floor.lone, 0.95), 'ms');
    row(`burst of ${BURST} from ${WRITERS} writers, p50`, quantile(quire.burst, 0.5), quantile(floor.burst, 0.5), 'ms');
    row(`burst of ${BURST} from ${WRITERS} writers, p95`, quantile(quire.burst, 0.95), quantile(floor.burst, 0.95), 'ms');
    row(`burst of ${BURST}: events handled per second`, quire.eventsPerSecond, floor.eventsPerSecond, 'events/s');
    log(`  (the burst's writes were answered at ${quire.writesPerSecond.toFixed(1)} per second; the floor's at ${floor.writesPerSecond.toFixed(1)})`);
    log(`integration delivery in dev mode: write answered → received by the tunnel (same floor)`);
    row(`tunnel: lone event, p50 (n=${LONE})`, quantile(tunnel.lone, 0.5), quantile(floor.lone, 0.5), 'ms');
    row(`tunnel: lone event, p95 (n=${LONE})`, quantile(tunnel.lone, 0.95), quantile(floor.lone, 0.95), 'ms');
    row(`tunnel: burst of ${BURST}, p50`, quantile(tunnel.burst, 0.5), quantile(floor.burst, 0.5), 'ms');
    row(`tunnel: burst of ${BURST}, p95`, quantile(tunnel.burst, 0.95), quantile(floor.burst, 0.95), 'ms');
    row(`tunnel: burst of ${BURST}: events handled per second`, tunnel.eventsPerSecond, floor.eventsPerSecond, 'events/s');
    return results;
  } finally {
    floorProcess.child.removeAllListeners('exit');
    floorProcess.child.stdin!.end();
    await receiver.close();
  }
}
