import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import {
  apiClient,
  expectOk as ok,
  isolatedGit,
  startFakeLibreTranslate,
  startTestStack,
  waitFor,
  type ApiClient,
  type FakeProvider,
  type TestAccount,
  type TestStack,
} from '@quire/testkit';
import { BACKENDS, readState, type StackState } from './layout';
import { pidHoldingConnection, readyFront, REPLICATED, replicaPid, replicaUrls, restartEachReplica, isReady, portOf, type Replicated } from './replicas';

/**
 * The stack with two processes of every service and of the gateway (QUIRE_REPLICAS=2), each
 * request alternating between the gateway's replicas, and the gateway and gRPC clients
 * spreading their calls over the services' replicas.
 */
describe('scale-out: two replicas of every service', () => {
  let stack: TestStack;
  let state: StackState;
  let admin: TestAccount;
  let orgId: string;
  /** The admin's client on each gateway replica. */
  let gateways: ApiClient[];
  /** The integration whose events go to `receiver` (a dev tunnel stand-in), installed for every space of the organization. */
  const RECORDER = '/v1/integrations/scaleout-recorder';
  let receiver: Server;
  /** The translation provider (upper-cases what it is sent, and records it). */
  let provider: FakeProvider;
  /**
   * The conversations' language model: it answers 503 (the service falls back to its own
   * pipeline), after holding each call while `holding` (a job under way in the process that called).
   */
  const model = { server: undefined as Server | undefined, holding: false, held: [] as Array<{ port: number; release: () => void }> };
  /** The id of every event delivered to the receiver, in order. */
  const delivered: string[] = [];
  type ListedEvent = { id: string; payload: { type: string; spaceId?: string } };
  /** The listed events of merges (into `spaceId`, when given). */
  const ofMerges = (items: ListedEvent[], spaceId?: string) =>
    items.filter((event) => event.payload.type === 'space_content_updated' && (spaceId === undefined || event.payload.spaceId === spaceId));
  /**
   * Once the events the test made are listed (`made`: an event reaches the list a moment after the
   * request that caused it answered) and every event listed is delivered: each once, and none that
   * is not listed.
   */
  const deliveredOnce = async (made: (items: ListedEvent[]) => boolean) => {
    let items: ListedEvent[] = [];
    let listed: string[] = [];
    const everyListedDelivered = async () => {
      items = ok(await gateways[1].get(`${RECORDER}/events?limit=1000`)).items;
      listed = items.map((event) => event.id);
      return made(items) && listed.every((id) => delivered.includes(id));
    };
    await waitFor('every event to be delivered', everyListedDelivered);
    // A moment for a second delivery of any of them to arrive, if one were made.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Listed again: an event made in the meantime (a late announcement) is listed and delivered too.
    await waitFor('every event to be delivered', everyListedDelivered);
    assert.equal(delivered.length, new Set(delivered).size, 'no event delivered twice');
    assert.deepEqual([...delivered].sort(), [...listed].sort(), 'the events delivered are the events listed');
    return items;
  };

  const urlsOf = (service: Replicated) => replicaUrls(state, service);
  const pidOf = (service: Replicated, url: string) => replicaPid(stack, service, url);
  /** A counter's total over its labels (those with every label of `labels`), in a replica's /metrics. */
  const counted = async (url: string, name: string, labels: Record<string, string> = {}) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
    return text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) && wanted.every((pair) => line.includes(pair)))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };
  /** A counter's total over every replica of a service. */
  const countedOnAll = async (service: Replicated, name: string, labels: Record<string, string> = {}) => {
    let sum = 0;
    for (const url of urlsOf(service)) sum += await counted(url, name, labels);
    return sum;
  };

  beforeAll(async () => {
    // The rolling restart's load is more than one token's default rate.
    // Event deliveries go to a receiver of the test's on 127.0.0.1.
    // Git remotes are bare repositories in a directory of the test's.
    // Translations go to a fake provider on 127.0.0.1.
    // A job held by a killed replica runs again elsewhere once its lock (JOB_LOCK_MS) ran out.
    provider = await startFakeLibreTranslate();
    model.server = createServer((req, res) => {
      const answer = () => res.writeHead(503).end();
      if (model.holding) model.held.push({ port: req.socket.remotePort!, release: answer });
      else answer();
    });
    await new Promise<void>((resolve) => model.server!.listen(0, '127.0.0.1', resolve));
    stack = await startTestStack({
      QUIRE_REPLICAS: '2',
      RATE_LIMIT_POINTS: '100000',
      INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      GIT_ALLOWED_PROTOCOLS: 'https,http,file',
      TRANSLATION_PROVIDER: 'libretranslate',
      TRANSLATION_PROVIDER_URL: provider.url,
      INSIGHTS_LLM_URL: `http://127.0.0.1:${(model.server.address() as AddressInfo).port}`,
      JOB_LOCK_MS: '6000',
      JOB_STALLED_CHECK_MS: '3000',
    });
    state = readState(stack.dataDir)!;
    admin = await stack.account(['bootstrap', '--email', 'admin@scale.test', '--org', 'Scale', '--json']);
    orgId = admin.organizationId;
    gateways = state.replicas.gateway.map(({ url }) => apiClient(url, admin.token));
    receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      delivered.push((JSON.parse(String(form.get('event'))) as { eventId: string }).eventId);
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await stack?.stop();
    if (receiver) await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await provider?.close();
    if (model.server) {
      model.server.closeAllConnections();
      await new Promise<void>((resolve) => model.server!.close(() => resolve()));
    }
  });

  it('runs two processes of each service and of the gateway, on ports of their own that stack.json lists', async () => {
    const ports = new Set<number>();
    for (const service of REPLICATED) {
      const pids = stack.servicePids(service);
      assert.equal(pids.length, 2, `${service}: two processes`);
      assert.deepEqual(
        pids.map(portOf).sort(),
        urlsOf(service)
          .map((url) => Number(new URL(url).port))
          .sort(),
        `${service}: each listed replica runs`,
      );
      for (const url of urlsOf(service)) {
        assert.ok(await isReady(url), `${url} is ready`);
        ports.add(Number(new URL(url).port));
      }
    }
    for (const service of BACKENDS) for (const { grpcAddress } of state.replicas[service]) ports.add(Number(grpcAddress.split(':')[1]));
    assert.equal(ports.size, 2 * REPLICATED.length + 2 * BACKENDS.length, 'no two listeners share a port');
    assert.equal(state.gatewayUrl, state.replicas.gateway[0].url);
  });

  it('reads every write through the other replica at once, and a removed member loses access on every replica at once', async () => {
    const space = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'Replicated' }), 201);
    let stale = 0;
    for (let i = 0; i < 20; i++) {
      const title = `Replicated ${i}`;
      ok(await gateways[i % 2].patch(`/v1/spaces/${space.id}`, { title }));
      if (ok(await gateways[(i + 1) % 2].get(`/v1/spaces/${space.id}`)).title !== title) stale++;
    }
    assert.equal(stale, 0, 'stale reads');

    // Change request numbers from both replicas at once: each number once.
    const numbers = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => ok(await gateways[i % 2].post(`/v1/spaces/${space.id}/change-requests`, { subject: `cr ${i}` }), 201).number),
    );
    assert.deepEqual(
      [...numbers].sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );

    for (let i = 0; i < 3; i++) {
      const reader = await stack.account(['add-member', '--org', orgId, '--email', `reader${i}@scale.test`, '--role', 'read', '--json']);
      const readers = state.replicas.gateway.map(({ url }) => apiClient(url, reader.token));
      // Both replicas have seen (and cached) the reader's access before it goes.
      for (const api of readers) ok(await api.get(`/v1/spaces/${space.id}`));
      ok(await gateways[i % 2].delete(`/v1/orgs/${orgId}/members/${reader.userId}`), 204);
      for (const api of readers) assert.equal((await api.get(`/v1/spaces/${space.id}`)).status, 404, 'no access left on either replica');
    }
  });

  it('spreads HTTP requests and gRPC calls over both replicas of each service', async () => {
    for (let i = 0; i < 10; i++) ok(await gateways[i % 2].get(`/v1/orgs/${orgId}/spaces`));
    for (const service of ['identity', 'content'] as const) {
      for (const url of urlsOf(service)) {
        assert.ok((await counted(url, 'quire_http_requests_total')) > 0, `${url}: HTTP requests reached this ${service} replica`);
      }
    }
    // Content asks identity over gRPC (access, members): both identity replicas answered some.
    for (const url of urlsOf('identity'))
      assert.ok((await counted(url, 'quire_grpc_server_calls_total')) > 0, `${url}: gRPC calls reached this identity replica`);
  });

  it('runs each job once across replicas: every event is delivered once, every merge numbered once', async () => {
    {
      const base = RECORDER;
      const script = 'export default { async fetch() { return new Response("ok"); } };';
      ok(
        await gateways[0].post(base, {
          organization: orgId,
          title: 'Scale-out recorder',
          description: 'Counts deliveries',
          scopes: ['space:content:read'],
          script,
        }),
      );
      const tunnelUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tunnel`;
      assert.equal((await gateways[1].put(`${base}/dev`, { tunnelUrl })).status, 204);
      const installation = ok(await gateways[0].post(`${base}/installations`, { organization: orgId }), 201);
      ok(await gateways[1].patch(`${base}/installations/${installation.id}`, { space_selection: 'all' }));

      // Merges from both replicas at once, into spaces of their own and into one shared space.
      const spaces = await Promise.all([0, 1, 2].map(async (i) => ok(await gateways[i % 2].post(`/v1/orgs/${orgId}/spaces`, { title: `Evented ${i}` }), 201)));
      const merges = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const api = gateways[i % 2];
          const space = spaces[i % 3];
          const cr = ok(await api.post(`/v1/spaces/${space.id}/change-requests`, { subject: `page ${i}` }), 201);
          ok(
            await api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, { changes: [{ type: 'insert_page', title: `Page ${i}` }] }),
          );
          return ok(await gateways[(i + 1) % 2].post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
        }),
      );
      assert.equal(new Set(merges.map((merge) => merge.revision)).size, 8, 'each merge made a revision of its own');
      for (const space of spaces) {
        const pages = ok(await gateways[0].get(`/v1/spaces/${space.id}/content`)).pages.length;
        assert.equal(pages, merges.filter((_, i) => i % 3 === spaces.indexOf(space)).length, `${space.title}: every merged page`);
      }

      assert.equal(ofMerges(await deliveredOnce((items) => ofMerges(items).length >= 8)).length, 8, 'an event for each merge');
    }
  });

  it('runs Git exports and imports as jobs any replica takes: two spaces exported at once, then imported back', async () => {
    const remotes = mkdtempSync(path.join(os.tmpdir(), 'quire-scaleout-git-'));
    const git = isolatedGit(remotes).run;
    try {
      const spaces = await Promise.all(
        [0, 1].map(async (i) => {
          const space = ok(await gateways[i].post(`/v1/orgs/${orgId}/spaces`, { title: `Synced ${i}` }), 201);
          const cr = ok(await gateways[1 - i].post(`/v1/spaces/${space.id}/change-requests`, { subject: 'pages' }), 201);
          const changes = [0, 1, 2].map((n) => ({ type: 'insert_page', title: `Page ${i}.${n}`, markdown: `Body ${i}.${n}` }));
          ok(await gateways[i].post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, { changes }));
          ok(await gateways[1 - i].post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
          const bare = path.join(remotes, `space-${i}.git`);
          git(remotes, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
          return { space, url: pathToFileURL(bare).href, bare };
        }),
      );
      /** The space's latest Git operation once it ended, asked of each replica in turn. */
      const settled = async (spaceId: string) => {
        let operation: { state: string; error?: string; commit?: string } = { state: 'running' };
        await waitFor(`the Git operation of ${spaceId} to end`, async () => {
          operation = ok(await gateways[Math.round(Math.random())].get(`/v1/spaces/${spaceId}/git/info`)).operation;
          return operation.state !== 'running';
        });
        assert.equal(operation.state, 'success', JSON.stringify(operation));
        return operation;
      };
      await Promise.all(
        spaces.map(async ({ space, url }, i) =>
          ok(await gateways[i].post(`/v1/spaces/${space.id}/git/export`, { url, ref: 'refs/heads/main', commitMessage: 'From a replica' }), 204),
        ),
      );
      for (const { space, bare } of spaces) {
        const operation = await settled(space.id);
        assert.equal(git(bare, 'rev-list', '--count', 'main'), '1', 'one commit per export');
        assert.equal(git(bare, 'rev-parse', 'main'), operation.commit);
      }
      const imported = ok(await gateways[1].post(`/v1/orgs/${orgId}/spaces`, { title: 'Imported' }), 201);
      ok(await gateways[0].post(`/v1/spaces/${imported.id}/git/import`, { url: spaces[1].url, ref: 'refs/heads/main' }), 204);
      await settled(imported.id);
      const titles = ok(await gateways[1].get(`/v1/spaces/${imported.id}/content`)).pages.map((page: { title: string }) => page.title);
      assert.deepEqual(titles, ['Page 1.0', 'Page 1.1', 'Page 1.2']);
    } finally {
      rmSync(remotes, { recursive: true, force: true });
    }
  });

  it('processes each conversation once across replicas, and loses none when a replica is killed while it processes them', async () => {
    const conversationsPath = `/v1/orgs/${orgId}/conversations`;
    const bodies = [
      'The password reset email never arrives in my inbox.',
      'Exporting the space to PDF fails with an error.',
      'Our custom domain shows an SSL certificate error.',
      'Search on our docs site does not find pages that exist.',
    ];
    const conversations = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        id: `${prefix}-${i}`,
        metadata: { url: `https://support.example.com/${prefix}/${i}`, attributes: { source: 'intercom' }, createdAt: new Date().toISOString() },
        parts: [{ type: 'message', role: 'user', body: `${bodies[i % bodies.length]} (ticket ${i})` }],
      }));
    /** Waits until every conversation of the list has been processed; the issues listed. */
    const processedAll = async (ids: string[]) => {
      await waitFor(
        `${ids.length} conversations processed`,
        async () => {
          const items = ok(await gateways[Math.round(Math.random())].get(`${conversationsPath}?limit=1000`)).items as Array<{
            id: string;
            processedAt?: string;
          }>;
          const done = new Set(items.filter((item) => item.processedAt).map((item) => item.id));
          return ids.every((id) => done.has(id));
        },
        90_000,
      );
    };
    /** Every cluster holds exactly the issues that name it: no conversation clustered twice. */
    const clustersTrue = async () => {
      const clusters = ok(await gateways[0].get(`/v1/orgs/${orgId}/conversations-clusters?limit=1000`)).items as Array<{
        id: string;
        stats: { issues: number };
      }>;
      const issues = ok(await gateways[1].get(`/v1/orgs/${orgId}/conversations-issues?limit=1000`));
      for (const cluster of clusters) {
        const own = issues.items.filter((item: { issue: { cluster: string } }) => item.issue.cluster === cluster.id).length;
        assert.equal(cluster.stats.issues, own, `issues of cluster ${cluster.id}`);
      }
      assert.equal(
        clusters.reduce((sum, cluster) => sum + cluster.stats.issues, 0),
        issues.count,
      );
    };
    const processing = { queue: 'conversation-processing', outcome: 'completed' };

    // Ingested through both replicas at once: each conversation's job runs once over both.
    const before = await countedOnAll('insights', 'quire_jobs_total', processing);
    const first = conversations('once', 12);
    await Promise.all(
      [0, 1].map(async (i) =>
        ok(
          await gateways[i].post(
            conversationsPath,
            first.filter((_, n) => n % 2 === i),
          ),
          204,
        ),
      ),
    );
    await processedAll(first.map((item) => item.id));
    // A job is counted once its worker reports it done, a moment after its conversation is: then no more.
    const processings = async () => (await countedOnAll('insights', 'quire_jobs_total', processing)) - before;
    await waitFor('each processing to be counted', async () => (await processings()) >= first.length, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(await processings(), first.length, 'one processing per conversation');
    await clustersTrue();

    // A replica killed while it runs a job (its call to the model held) and more are queued: the
    // other replica runs the queued ones, and the dead one's once its lock ran out (JOB_LOCK_MS).
    model.holding = true;
    const second = conversations('killed', 20);
    ok(await gateways[0].post(conversationsPath, second), 204);
    let victim: number | undefined;
    await waitFor('a job under way in an insights replica', async () => {
      victim = model.held.map(({ port }) => pidHoldingConnection(stack.servicePids('insights'), port)).find((pid) => pid !== undefined);
      return victim !== undefined;
    });
    const victimUrl = urlsOf('insights').find((url) => pidOf('insights', url) === victim)!;
    process.kill(victim!, 'SIGKILL');
    model.holding = false;
    for (const { release } of model.held.splice(0)) release();
    await processedAll(second.map((item) => item.id));
    await clustersTrue();
    await waitFor('the killed replica to be restarted', async () => pidOf('insights', victimUrl) !== undefined && (await isReady(victimUrl)), 20_000);
  });

  it('runs a translation once when its runs are asked through both replicas at once', async () => {
    const source = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'To translate' }), 201);
    const cr = ok(await gateways[1].post(`/v1/spaces/${source.id}/change-requests`, { subject: 'pages' }), 201);
    const changes = ['Welcome', 'Install', 'Configure'].map((title) => ({ type: 'insert_page', title, markdown: `${title} the product in a few steps.` }));
    ok(await gateways[0].post(`/v1/spaces/${source.id}/change-requests/${cr.id}/content?compat=false`, { changes }));
    ok(await gateways[1].post(`/v1/spaces/${source.id}/change-requests/${cr.id}/merge`));
    const spacesBefore = ok(await gateways[0].get(`/v1/orgs/${orgId}/spaces?limit=1000`)).items.length;
    provider.reset();

    const translations = `/v1/orgs/${orgId}/translations`;
    const translation = ok(await gateways[1].post(translations, { source: { space: source.id, language: 'en' }, language: 'fr' }), 201);
    for (const answer of await Promise.all(Array.from({ length: 6 }, (_, i) => gateways[i % 2].post(`${translations}/${translation.id}/run`)))) {
      assert.equal(answer.status, 204, JSON.stringify(answer.body));
    }
    let done: { status: string; result?: { space: string } } | undefined;
    const finished = () =>
      waitFor(
        'the runs to finish',
        async () => {
          done = ok(await gateways[Math.round(Math.random())].get(`${translations}/${translation.id}`));
          return done!.status === 'completed';
        },
        60_000,
      );
    // Finished, then finished again after a moment for the runs found busy to come back (BUSY_DELAY_MS): none translated anything twice.
    await finished();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await finished();
    const texts = provider.texts();
    assert.ok(
      texts.some((text) => text.includes('Welcome')),
      'the pages were translated',
    );
    assert.equal(texts.length, new Set(texts).size, `no text translated twice: ${JSON.stringify(texts)}`);
    const spacesAfter = ok(await gateways[1].get(`/v1/orgs/${orgId}/spaces?limit=1000`)).items;
    assert.equal(spacesAfter.length, spacesBefore + 1, 'one target space');
    const target = ok(await gateways[0].get(`/v1/spaces/${done!.result!.space}/content`)).pages.map((page: { title: string }) => page.title);
    assert.deepEqual(target, ['WELCOME', 'INSTALL', 'CONFIGURE']);
  });

  it("makes a revision's search index once across replicas: the other replica loads what the first stored", async () => {
    const space = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'Searched' }), 201);
    const merge = async (api: ApiClient, changes: unknown[]) => {
      const cr = ok(await api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'pages' }), 201);
      ok(await api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, { changes }));
      ok(await api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
    };
    await merge(
      gateways[1],
      Array.from({ length: 12 }, (_, i) => ({ type: 'insert_page', title: `Topic ${i}`, markdown: `## Part ${i}\\n\\nAbout lighthouse number ${i}.` })),
    );
    const made = async () => ({
      built: await countedOnAll('content', 'quire_search_indexes_made_total', { how: 'built' }),
      derived: await countedOnAll('content', 'quire_search_indexes_made_total', { how: 'derived' }),
    });
    const before = await made();
    /** Searches through both gateways at once (each gateway alternating content replicas): the titles found by each. */
    const search = async (query: string) =>
      Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const found = ok(await gateways[i % 2].get(`/v1/spaces/${space.id}/search?query=${encodeURIComponent(query)}`)).items;
          return found.map((item: { title: string }) => item.title).sort();
        }),
      );
    for (const titles of await search('lighthouse')) assert.equal(titles.length, 12);
    const first = await made();
    assert.equal(first.built - before.built + first.derived - before.derived, 1, 'one making of the index over both replicas');

    // A new revision: its index is made once (derived, by the replica that warms it or the first to search), the new page found through both.
    await merge(gateways[0], [{ type: 'insert_page', title: 'Beacon', markdown: 'A lighthouse beacon.' }]);
    for (const titles of await search('beacon')) assert.deepEqual(titles, ['Beacon']);
    const second = await made();
    assert.equal(second.built, first.built, 'no full build for a derived revision');
  });

  it('counts reactions of many users made through both replicas at once', async () => {
    const space = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'Reactions' }), 201);
    const comment = ok(await gateways[1].post(`/v1/spaces/${space.id}/comments`, { body: { markdown: 'react to me' } }));
    const users = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stack.account(['add-member', '--org', orgId, '--email', `reacts${i}@scale.test`, '--role', 'comment', '--json'])),
    );
    await Promise.all(
      users.map(async (user, i) =>
        ok(await apiClient(urlsOf('gateway')[i % 2], user.token).put(`/v1/spaces/${space.id}/comments/${comment.id}`, { addedReactions: ['👍'] })),
      ),
    );
    const reactions = ok(await gateways[0].get(`/v1/spaces/${space.id}/comments/${comment.id}`)).reactions;
    assert.deepEqual(
      reactions.map((reaction: { emoji: string; count: number }) => [reaction.emoji, reaction.count]),
      [['👍', 6]],
    );
  });

  it('skips a replica that was killed at once, and sends to it again once the supervisor restarted it', async () => {
    const space = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'Survivor' }), 201);
    const [, second] = urlsOf('content');
    const pid = pidOf('content', second)!;
    process.kill(pid, 'SIGKILL');
    // Reads at once: one that meets the dead replica (a refused or reset connection) goes to the other.
    for (let i = 0; i < 20; i++) ok(await gateways[i % 2].get(`/v1/spaces/${space.id}`));
    // Writes too: the dead replica is skipped by now.
    for (let i = 0; i < 10; i++) {
      ok(await gateways[i % 2].patch(`/v1/spaces/${space.id}`, { title: `Survivor ${i}` }));
      ok(await gateways[i % 2].post(`/v1/spaces/${space.id}/change-requests`, { subject: `after the kill ${i}` }), 201);
    }
    await waitFor('the killed replica to be restarted', async () => pidOf('content', second) !== undefined && (await isReady(second)), 20_000);
    assert.notEqual(pidOf('content', second), pid);
    await waitFor(
      'requests to reach the restarted replica',
      async () => {
        await Promise.all(gateways.map((api) => api.get(`/v1/spaces/${space.id}`)));
        return (await counted(second, 'quire_http_requests_total')) > 1;
      },
      10_000,
    );
  });

  it('skips a replica that stopped answering (SIGSTOP): its HTTP within a second, its gRPC connections within two', async () => {
    const space = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'Hung peers' }), 201);
    const [liveContent, hungContent] = urlsOf('content');
    const [liveIdentity, hungIdentity] = urlsOf('identity');
    const hung = [pidOf('content', hungContent)!, pidOf('identity', hungIdentity)!];
    const grpcBefore = await counted(liveIdentity, 'quire_grpc_server_calls_total');
    const httpBefore = await counted(liveContent, 'quire_http_requests_total');
    for (const pid of hung) process.kill(pid, 'SIGSTOP');
    try {
      // The gateway's readiness poll (500 ms, answered within 500 ms) and gRPC keepalive (1 s ping, 1 s to answer).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // A request sent to a hung replica would never be answered: each must be, by the live ones.
      const answered = async (call: (api: ApiClient) => Promise<{ status: number }>, i: number) => {
        const status = await Promise.race([
          call(gateways[i % 2]).then((response) => response.status),
          new Promise<string>((resolve) => setTimeout(() => resolve('no answer in 10 s'), 10_000)),
        ]);
        return status;
      };
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => [
          answered((api) => api.get(`/v1/spaces/${space.id}`), i),
          answered((api) => api.patch(`/v1/spaces/${space.id}`, { title: `Hung peers ${i}` }), i),
          answered((api) => api.get(`/v1/orgs/${orgId}/members?limit=5`), i),
          answered((api) => api.post(`/v1/spaces/${space.id}/change-requests`, { subject: `while hung ${i}` }), i),
        ]).flat(),
      );
      assert.deepEqual(
        statuses.filter((status) => typeof status !== 'number' || status >= 300),
        [],
        'every request answered, by the live replicas',
      );
      assert.ok((await counted(liveContent, 'quire_http_requests_total')) >= httpBefore + 30, 'the live content replica took the requests');
      assert.ok((await counted(liveIdentity, 'quire_grpc_server_calls_total')) > grpcBefore, 'the live identity replica took the gRPC calls');
    } finally {
      for (const pid of hung) process.kill(pid, 'SIGCONT');
    }
    await waitFor('the stopped replicas to be ready again', async () => (await isReady(hungContent)) && (await isReady(hungIdentity)), 20_000);
  });

  it('restarts every replica of every service one after another under a load of reads and writes: no failed request, no acknowledged write lost', async () => {
    // The load's way in, as a Kubernetes Service in front of the gateway is: only to replicas that say they are ready.
    const gatewayFront = readyFront(urlsOf('gateway'));
    const front = () => apiClient(gatewayFront.next(), admin.token);

    const failures: string[] = [];
    let requests = 0;
    const attempt = async (what: string, call: () => Promise<{ status: number; body?: unknown }>) => {
      requests++;
      try {
        const { status, body } = await call();
        if (status >= 500) failures.push(`${what}: ${status} ${JSON.stringify(body)}`);
        return status;
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
        return 0;
      }
    };
    // Each worker writes a space of its own (its last acknowledged title must be what it reads at the end) and opens change requests.
    const workers = await Promise.all(
      Array.from({ length: 3 }, async (_, k) => ({
        space: ok(await gateways[k % 2].post(`/v1/orgs/${orgId}/spaces`, { title: `Rolling ${k}` }), 201),
        title: '',
        opened: [] as string[],
      })),
    );
    let running = true;
    // Merges all along, each an event to deliver (jobs of integrations' queue while its replicas restart).
    const evented = ok(await gateways[0].post(`/v1/orgs/${orgId}/spaces`, { title: 'Evented while restarting' }), 201);
    let merged = 0;
    const merging = (async () => {
      for (let i = 0; running; i++) {
        let cr: { id?: string } = {};
        if (
          (await attempt('POST change request', async () => {
            const response = await front().post(`/v1/spaces/${evented.id}/change-requests`, { subject: `restart ${i}` });
            cr = response.body ?? {};
            return response;
          })) !== 201
        )
          continue;
        const path = `/v1/spaces/${evented.id}/change-requests/${cr.id}`;
        if (
          (await attempt('POST content', () => front().post(`${path}/content?compat=false`, { changes: [{ type: 'insert_page', title: `Restart ${i}` }] }))) !==
          200
        )
          continue;
        if ((await attempt('POST merge', () => front().post(`${path}/merge`))) === 200) merged++;
      }
    })();
    // Git exports all along, one after another (jobs of content's queue while its replicas restart): each acknowledged one ends in success.
    const remotes = mkdtempSync(path.join(os.tmpdir(), 'quire-scaleout-rolling-git-'));
    const bare = path.join(remotes, 'rolling.git');
    isolatedGit(remotes).run(remotes, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
    const exported = ok(await gateways[1].post(`/v1/orgs/${orgId}/spaces`, { title: 'Exported while restarting' }), 201);
    const exportOutcomes: Array<{ state: string; commit?: string; error?: string }> = [];
    const exporting = (async () => {
      for (let i = 0; running; i++) {
        const body = { url: pathToFileURL(bare).href, ref: 'refs/heads/main', commitMessage: `Export ${i}` };
        if ((await attempt('POST git export', () => front().post(`/v1/spaces/${exported.id}/git/export`, body))) !== 204) continue;
        let operation: { state: string; commit?: string; error?: string } = { state: 'running' };
        while (operation.state === 'running') {
          await new Promise((resolve) => setTimeout(resolve, 200));
          await attempt('GET git info', async () => {
            const response = await front().get(`/v1/spaces/${exported.id}/git/info`);
            if (response.status === 200) operation = response.body.operation;
            return response;
          });
        }
        exportOutcomes.push(operation);
      }
    })();
    const load = workers.map(async (worker, k) => {
      for (let i = 0; running; i++) {
        const title = `Rolling ${k}.${i}`;
        if ((await attempt('PATCH space', () => front().patch(`/v1/spaces/${worker.space.id}`, { title }))) === 200) worker.title = title;
        await attempt('GET space', () => front().get(`/v1/spaces/${worker.space.id}`));
        if (i % 5 === 0) {
          let id = '';
          const status = await attempt('POST change request', async () => {
            const response = await front().post(`/v1/spaces/${worker.space.id}/change-requests`, { subject: `cr ${k}.${i}` });
            id = response.body?.id;
            return response;
          });
          if (status === 201) worker.opened.push(id);
        }
        await attempt('GET spaces', () => front().get(`/v1/orgs/${orgId}/spaces?limit=5`));
      }
    });

    await restartEachReplica(stack, state);
    running = false;
    await Promise.all([...load, merging, exporting]);
    await gatewayFront.stop();

    assert.deepEqual(failures, [], `failed requests (of ${requests})`);
    assert.ok(requests > 200, `a load ran throughout (${requests} requests)`);
    for (const worker of workers) {
      assert.equal(ok(await gateways[0].get(`/v1/spaces/${worker.space.id}`)).title, worker.title, 'the last acknowledged title');
      for (const id of worker.opened) ok(await gateways[1].get(`/v1/spaces/${worker.space.id}/change-requests/${id}`));
    }
    // Every process is new: their caches started empty and subscribed, and stay coherent.
    let stale = 0;
    for (let i = 0; i < 10; i++) {
      const title = `After the restarts ${i}`;
      ok(await gateways[i % 2].patch(`/v1/spaces/${workers[0].space.id}`, { title }));
      if (ok(await gateways[(i + 1) % 2].get(`/v1/spaces/${workers[0].space.id}`)).title !== title) stale++;
    }
    assert.equal(stale, 0, 'stale reads after the restarts');
    // Every merge acknowledged during the restarts is in the space, and its event delivered once.
    assert.ok(merged > 5, `merges ran throughout (${merged})`);
    assert.equal(ok(await gateways[1].get(`/v1/spaces/${evented.id}/content`)).pages.length, merged, 'every acknowledged merge');
    const events = await deliveredOnce((items) => ofMerges(items, evented.id).length >= merged);
    assert.equal(ofMerges(events, evented.id).length, merged, 'an event for each acknowledged merge');
    // Every acknowledged Git export ran to its end, and the remote holds the last one's commit.
    assert.ok(exportOutcomes.length >= 3, `exports ran throughout (${exportOutcomes.length})`);
    assert.deepEqual(
      exportOutcomes.filter((operation) => operation.state !== 'success'),
      [],
      'every export succeeded',
    );
    assert.equal(isolatedGit(remotes).run(bare, 'rev-parse', 'main'), exportOutcomes.at(-1)!.commit);
    rmSync(remotes, { recursive: true, force: true });
  });
});
