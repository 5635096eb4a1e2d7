import { performance } from 'node:perf_hooks';
import { labelledConversations } from '@quire/insights';
import { seededRandom } from '@quire/runtime';
import { apiClient, successBody, type ApiClient, type TestStack } from '@quire/testkit';
import { benchIntegrations, receiptScript, startReceiver, type Receiver } from './bench-integrations';
import { quantile } from './bench-stats';

/*
 * `npm run bench -- tenants`: whether one organization can slow another down. The caller's stack
 * must let scripts reach loopback (INTEGRATIONS_ALLOW_PRIVATE_NETWORKS) and not rate-limit the
 * bench's tokens (RATE_LIMIT_POINTS).
 *
 * Organization B is an ordinary tenant: a space, a site publishing it, and an integration whose
 * script tells a receiver in this process which event it handled. B's three probes run side by
 * side, each one request at a time: GET /v1/spaces/{id}, a GET of its published page, and one
 * content write every EVENT_EVERY_MS whose event's delivery is timed from the write's answer to
 * the receiver's receipt.
 *
 * Organization A is hostile. For HOSTILE_MS, at once:
 *   - its integration's public endpoint (no token needed) called by clients running an endless
 *     loop and a memory bomb in its script;
 *   - an event flood: writers applying a template to A's spaces, where an integration is
 *     installed on every space (one delivery per write);
 *   - a conversation flood: writers ingesting conversations;
 *   - cold searches: a large space is edited and merged, then searched with a query not asked
 *     before (each merge makes a new revision, whose search index is built on first use).
 *
 * B is measured alone for ALONE_MS, then during A's load, in the same run. The target: B's p99
 * under A's load at most 1.5× B alone, and no error for B. Then the delivery section
 * (`npm run bench -- integrations`) reports event throughput against its floor.
 */

const ALONE_MS = 15_000;
const HOSTILE_MS = 30_000;
const EVENT_EVERY_MS = 500;
const ENDPOINT_LOOPERS = 4;
const ENDPOINT_BOMBERS = 2;
const EVENT_WRITERS = 6;
const CONVERSATION_WRITERS = 4;
const SEARCHERS = 2;
const LARGE_SPACE_PAGES = 400;
const BATCH = 50;

/** A's script: an endless loop, or (under `/bomb`) allocation until it is stopped. */
const HOSTILE_SCRIPT = `export default {
  async fetch(request) {
    if (new URL(request.url).pathname.endsWith('/bomb')) {
      const hoard = [];
      for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
    }
    for (;;) {}
  },
};`;

/** A script that handles every event and does nothing else (A's flood of deliveries). */
const IDLE_SCRIPT = `export default { async fetch() { return new Response('ok'); } };`;

interface Samples {
  latencies: number[];
  errors: number;
  statuses: Map<number | string, number>;
}

const newSamples = (): Samples => ({ latencies: [], errors: 0, statuses: new Map() });

function count(samples: Samples, status: number | string): void {
  samples.statuses.set(status, (samples.statuses.get(status) ?? 0) + 1);
}

/** Runs `step` one at a time until `until`, timing each; a step that throws or answers an error counts as an error. */
async function loop(until: number, samples: Samples, step: () => Promise<number>, pauseMs = 0): Promise<void> {
  while (performance.now() < until) {
    const started = performance.now();
    try {
      const status = await step();
      count(samples, status);
      if (status >= 500 || status === 0) samples.errors += 1;
      else samples.latencies.push(performance.now() - started);
    } catch (error) {
      samples.errors += 1;
      count(samples, error instanceof Error ? error.name : 'error');
    }
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

async function publishIntegration(api: ApiClient, organizationId: string, name: string, script: string): Promise<void> {
  successBody(
    await api.post(`/v1/integrations/${name}`, {
      organization: organizationId,
      title: name,
      description: 'Bench tenants',
      scopes: ['space:content:read'],
      visibility: 'public',
      script,
    }),
    `publish ${name}`,
  );
  const installation = successBody(await api.post(`/v1/integrations/${name}/installations`, { organization: organizationId }), `install ${name}`);
  successBody(await api.patch(`/v1/integrations/${name}/installations/${installation.id}`, { space_selection: 'all' }), `install ${name} on every space`);
}

/** Organization B: a space with a page, a published site showing it, and the receipt integration. */
async function tenantB(stack: Pick<TestStack, 'baseUrl' | 'cli'>, receiver: Receiver) {
  const owner = await stack.cli(['bootstrap', '--email', `bench-tenant-b-${Date.now()}@bench.test`, '--org', 'Bench tenant B', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  await publishIntegration(api, owner.organizationId, `bench-tenant-b-${Date.now().toString(36)}`, receiptScript(receiver.url));
  const spaceId: string = successBody(await api.post(`/v1/orgs/${owner.organizationId}/spaces`, { title: 'Tenant B' }), 'create space').id;
  successBody(await api.post(`/v1/spaces/${spaceId}/content/template`, { id: 'getting-started' }), 'apply a template');
  const sites = `/v1/orgs/${owner.organizationId}/sites`;
  const site = successBody(await api.post(sites, { title: 'Tenant B handbook', spaces: [spaceId] }), 'create site');
  const published = successBody(await api.post(`${sites}/${site.id}/publish`), 'publish site');
  const pageUrl = `${stack.baseUrl}${new URL(published.urls.published as string).pathname}`;
  const pageAnswer = await fetch(pageUrl);
  if (pageAnswer.status !== 200) throw new Error(`B's published page answered ${pageAnswer.status}`);
  await receiver.received(successBody(await api.get(`/v1/spaces/${spaceId}`), 'read space').revision);
  return { api, spaceId, pageUrl };
}

type TenantB = Awaited<ReturnType<typeof tenantB>>;

interface Probes {
  space: Samples;
  page: Samples;
  event: Samples;
}

/** B's three probes for `durationMs`. */
async function probeB(b: TenantB, receiver: Receiver, durationMs: number): Promise<Probes> {
  const until = performance.now() + durationMs;
  const probes: Probes = { space: newSamples(), page: newSamples(), event: newSamples() };
  await Promise.all([
    loop(until, probes.space, async () => (await b.api.get(`/v1/spaces/${b.spaceId}`)).status),
    loop(until, probes.page, async () => {
      const answer = await fetch(b.pageUrl, { headers: { 'accept-encoding': 'gzip' }, signal: AbortSignal.timeout(30_000) });
      await answer.arrayBuffer();
      return answer.status;
    }),
    (async () => {
      while (performance.now() < until) {
        const next = performance.now() + EVENT_EVERY_MS;
        try {
          const write = await b.api.post(`/v1/spaces/${b.spaceId}/content/template`, { id: 'getting-started' });
          if (write.status >= 300) throw new Error(`B's write answered ${write.status}`);
          const ackedAt = performance.now();
          const read = await b.api.get(`/v1/spaces/${b.spaceId}`);
          if (read.status !== 200) throw new Error(`B's read answered ${read.status}`);
          probes.event.latencies.push((await receiver.received(read.body.revision as string)) - ackedAt);
          count(probes.event, 200);
        } catch (error) {
          probes.event.errors += 1;
          count(probes.event, error instanceof Error ? error.message.slice(0, 60) : 'error');
        }
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      }
    })(),
  ]);
  return probes;
}

/** Organization A's means: the hostile integration, spaces under an all-spaces installation, a large space. */
async function tenantA(stack: Pick<TestStack, 'baseUrl' | 'cli'>) {
  const owner = await stack.cli(['bootstrap', '--email', `bench-tenant-a-${Date.now()}@bench.test`, '--org', 'Bench tenant A', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  const organizationId: string = owner.organizationId;
  const hostile = `bench-hostile-${Date.now().toString(36)}`;
  successBody(
    await api.post(`/v1/integrations/${hostile}`, {
      organization: organizationId,
      title: 'Hostile',
      description: 'Loops and hoards',
      scopes: [],
      visibility: 'public',
      script: HOSTILE_SCRIPT,
    }),
    'publish the hostile integration',
  );
  await publishIntegration(api, organizationId, `bench-flood-${Date.now().toString(36)}`, IDLE_SCRIPT);
  const spaces: string[] = [];
  for (let i = 0; i < EVENT_WRITERS; i++)
    spaces.push(successBody(await api.post(`/v1/orgs/${organizationId}/spaces`, { title: `Flood ${i}` }), 'create space').id);
  const large: string = successBody(await api.post(`/v1/orgs/${organizationId}/spaces`, { title: 'Large' }), 'create space').id;
  const random = seededRandom(11);
  const word = () => `w${Math.floor(random() * 5000).toString(36)}`;
  const cr = successBody(await api.post(`/v1/spaces/${large}/change-requests`, { subject: 'pages' }), 'create change request').id;
  for (let start = 0; start < LARGE_SPACE_PAGES; start += BATCH) {
    const changes = Array.from({ length: BATCH }, (_, i) => ({
      type: 'insert_page',
      title: `Page ${start + i} ${word()}`,
      slug: `page-${start + i}`,
      markdown: Array.from({ length: 6 }, () => `## ${word()} ${word()}\n\n${Array.from({ length: 60 }, word).join(' ')}.`).join('\n\n'),
    }));
    successBody(await api.post(`/v1/spaces/${large}/change-requests/${cr}/content`, { changes }), 'insert pages');
  }
  successBody(await api.post(`/v1/spaces/${large}/change-requests/${cr}/merge`), 'merge');
  return { api, organizationId, hostile, spaces, large, word };
}

type TenantA = Awaited<ReturnType<typeof tenantA>>;

/** A's hostile load for `durationMs`; what it did, by kind and answer. */
async function hostileLoad(stack: Pick<TestStack, 'baseUrl'>, a: TenantA, durationMs: number): Promise<Record<string, Samples>> {
  const until = performance.now() + durationMs;
  const endpoint = `${stack.baseUrl}/v1/public/integrations/${a.hostile}/integration`;
  const load: Record<string, Samples> = { endpoint: newSamples(), writes: newSamples(), conversations: newSamples(), searches: newSamples() };
  const call = async (path: string) => {
    const answer = await fetch(`${endpoint}${path}`, { signal: AbortSignal.timeout(60_000) });
    await answer.arrayBuffer();
    // A refused call (429) is the limit doing its work: wait as told, as a client would not, but briefly.
    if (answer.status === 429) await new Promise((resolve) => setTimeout(resolve, 100));
    return answer.status;
  };
  const conversations = labelledConversations({ perProblem: 200, prefix: `flood-${Date.now().toString(36)}` });
  let nextConversation = 0;
  await Promise.all([
    ...Array.from({ length: ENDPOINT_LOOPERS }, () => loop(until, load.endpoint, () => call('/loop'))),
    ...Array.from({ length: ENDPOINT_BOMBERS }, () => loop(until, load.endpoint, () => call('/bomb'))),
    ...a.spaces.map((spaceId) =>
      loop(until, load.writes, async () => (await a.api.post(`/v1/spaces/${spaceId}/content/template`, { id: 'getting-started' })).status),
    ),
    ...Array.from({ length: CONVERSATION_WRITERS }, () =>
      loop(until, load.conversations, async () => {
        const input = conversations[nextConversation++ % conversations.length].input;
        return (await a.api.post(`/v1/orgs/${a.organizationId}/conversations`, { ...input, id: `${input.id}-${nextConversation}` })).status;
      }),
    ),
    ...Array.from({ length: SEARCHERS }, (_, searcher) =>
      loop(until, load.searches, async () => {
        if (searcher === 0) {
          // A new revision: the next search builds its index.
          const cr = await a.api.post(`/v1/spaces/${a.large}/change-requests`, { subject: 'edit' });
          if (cr.status >= 300) return cr.status;
          const content = await a.api.post(`/v1/spaces/${a.large}/change-requests/${cr.body.id}/content`, {
            changes: [{ type: 'insert_page', title: `Edit ${a.word()}`, markdown: `${a.word()} ${a.word()}` }],
          });
          if (content.status >= 300) return content.status;
          const merged = await a.api.post(`/v1/spaces/${a.large}/change-requests/${cr.body.id}/merge`);
          if (merged.status >= 300) return merged.status;
        }
        return (await a.api.get(`/v1/spaces/${a.large}/search?query=${a.word()}%20${a.word()}&limit=20`)).status;
      }),
    ),
  ]);
  return load;
}

const statuses = (samples: Samples) =>
  [...samples.statuses.entries()]
    .sort((x, y) => y[1] - x[1])
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

export async function benchTenants(stack: Pick<TestStack, 'baseUrl' | 'cli' | 'env'>, options: { log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const receiver = await startReceiver();
  try {
    const b = await tenantB(stack, receiver);
    const a = await tenantA(stack);
    // Warm B's paths, then B alone.
    await probeB(b, receiver, 2_000);
    const alone = await probeB(b, receiver, ALONE_MS);
    // B under A's load, measured over the same span as the load.
    const [loaded, load] = await Promise.all([probeB(b, receiver, HOSTILE_MS), hostileLoad(stack, a, HOSTILE_MS)]);

    log(`tenants: organization B alone (${ALONE_MS / 1000} s) and under organization A's hostile load (${HOSTILE_MS / 1000} s), same run`);
    log(
      `${''.padEnd(40)} ${'alone p50'.padStart(10)} ${'p99'.padStart(9)} ${'loaded p50'.padStart(11)} ${'p99'.padStart(9)} ${'p99 ×'.padStart(7)}  B's errors (n)`,
    );
    const row = (label: string, key: keyof Probes) => {
      const [x, y] = [alone[key], loaded[key]];
      const p99Ratio = quantile(y.latencies, 0.99) / quantile(x.latencies, 0.99);
      log(
        `${label.padEnd(40)} ${quantile(x.latencies, 0.5).toFixed(1).padStart(8)}ms ${quantile(x.latencies, 0.99).toFixed(1).padStart(7)}ms ` +
          `${quantile(y.latencies, 0.5).toFixed(1).padStart(9)}ms ${quantile(y.latencies, 0.99).toFixed(1).padStart(7)}ms ${p99Ratio.toFixed(2).padStart(7)}  ` +
          `${x.errors + y.errors} (${x.latencies.length} + ${y.latencies.length})`,
      );
    };
    row('GET /v1/spaces/{id}', 'space');
    row("a published page of B's site", 'page');
    row("one of B's events: write → script", 'event');
    log(`A's load (answers): public endpoint loops and bombs ${statuses(load.endpoint)}`);
    log(
      `  template writes (events) ${statuses(load.writes)} · conversations ${statuses(load.conversations)} · edits + cold searches ${statuses(load.searches)}`,
    );
    for (const key of ['space', 'page', 'event'] as const)
      if (alone[key].errors + loaded[key].errors) log(`  B's ${key} answers: alone ${statuses(alone[key])} · loaded ${statuses(loaded[key])}`);
  } finally {
    await receiver.close();
  }
  await benchIntegrations(stack, { log });
}
