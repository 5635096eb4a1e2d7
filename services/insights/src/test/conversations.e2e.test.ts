import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient, expectError, expectOk, sharedTestStack, waitFor, type ApiClient, type TestOrganization, type TestStack } from '@quire/testkit';

/** One conversation in GitBook's ConversationInput shape. */
function conversation(id: string, body: string, options: { subject?: string; source?: string; daysAgo?: number; reply?: string } = {}) {
  return {
    id,
    ...(options.subject ? { subject: options.subject } : {}),
    metadata: {
      url: `https://support.example.com/tickets/${encodeURIComponent(id)}`,
      attributes: { source: options.source ?? 'intercom', customer: 'acme.com' },
      createdAt: new Date(Date.now() - (options.daysAgo ?? 0) * 24 * 3600 * 1000).toISOString(),
    },
    parts: [{ type: 'message', role: 'user', body }, ...(options.reply ? [{ type: 'message', role: 'team-member', body: options.reply }] : [])],
  };
}

const PASSWORD = [
  'I requested a password reset but the reset email never arrived.',
  'The password reset email does not show up in my inbox, I tried three times.',
  'I forgot my password and the reset link email is not being sent to me.',
  'Password reset emails never reach my mailbox. How do I reset my password?',
  'Why does the password reset email never come? I checked the spam folder.',
];
const PDF = ['Exporting the space to PDF fails with an error.', 'The PDF export of our docs fails every time, how can I export to PDF?'];
const DOMAIN = 'Our custom domain shows an SSL certificate error although the DNS CNAME record is set.';
const SEARCH = 'The search on our docs site does not find pages that exist. Why is search missing them?';

interface Cluster {
  id: string;
  label: string;
  icon: string;
  summary: string;
  weeklyPulse: number[];
  sources: Record<string, number>;
  stats: { issues: number; conversations: number };
  createdAt: string;
  updatedAt: string;
}

/** Ingestion, issues and clusters of conversations through the gateway, with every answer checked against the API document. */
describe('insights: conversations, issues and clusters', () => {
  let stack: TestStack;
  let org: TestOrganization<'read' | 'edit' | 'guest'>;
  let recorder: { url: string; tokens: Map<string, string>; server: Server };
  const path = (suffix = '') => `/v1/orgs/${org.id}/conversations${suffix}`;
  const issuesPath = (query = '') => `/v1/orgs/${org.id}/conversations-issues${query}`;
  const clustersPath = (query = '') => `/v1/orgs/${org.id}/conversations-clusters${query}`;

  /** Waits (bounded) until each conversation has its processedAt; returns the details. */
  const processed = async (ids: readonly string[], api: ApiClient = org.admin.api) => {
    const details: Record<string, any> = {};
    await waitFor(
      `conversations ${ids.join(', ')} processed`,
      async () => {
        const pending = ids.filter((id) => !details[id]);
        const answers = await Promise.all(pending.map((id) => api.get(path(`/${encodeURIComponent(id)}`))));
        answers.forEach((answer, i) => {
          if (answer.status === 200 && answer.body.conversation.processedAt) details[pending[i]] = answer.body;
        });
        return ids.every((id) => details[id]);
      },
      90_000,
    );
    return details;
  };
  const issuesOf = async (id: string) => expectOk(await org.admin.api.get(issuesPath(`?conversation=${encodeURIComponent(id)}`))).items;
  const clusterOf = async (id: string): Promise<string> => (await issuesOf(id))[0].issue.cluster;
  const allClusters = async (): Promise<Cluster[]> => expectOk(await org.admin.api.get(clustersPath('?limit=1000'))).items;
  const clusterById = async (id: string) => (await allClusters()).find((cluster) => cluster.id === id);
  /** Every cluster's stats equal what its issues say, and the clusters hold every issue. */
  const assertStatsTrue = async () => {
    const clusters = await allClusters();
    const issues = expectOk(await org.admin.api.get(issuesPath('?limit=1000')));
    let sum = 0;
    for (const cluster of clusters) {
      const own = issues.items.filter((item: any) => item.issue.cluster === cluster.id);
      assert.equal(cluster.stats.issues, own.length, `issues of ${cluster.label}`);
      assert.equal(cluster.stats.conversations, new Set(own.map((item: any) => item.issue.conversation)).size, `conversations of ${cluster.label}`);
      assert.equal(
        Object.values(cluster.sources).reduce((a, b) => a + b, 0),
        cluster.stats.conversations,
      );
      sum += cluster.stats.issues;
    }
    assert.equal(sum, issues.count);
  };

  beforeAll(async () => {
    // The integration scripts of the permission test report their installation token here.
    const tokens = new Map<string, string>();
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const { name, token } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string; token: string };
      tokens.set(name, token);
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    recorder = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, tokens, server };
    stack = await sharedTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    org = await stack.organization({ domain: 'conversations.test', title: 'Conversations', roles: ['read', 'edit', 'guest'] });
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise<void>((resolve) => (recorder?.server ? recorder.server.close(() => resolve()) : resolve()));
  });

  it('ingests one conversation (204), processes it in the background, and answers it, its issue and its cluster', async () => {
    const input = conversation('ticket-1', `Hello! ${PASSWORD[0]} How can I reset my password?`, {
      subject: 'Password reset email not arriving',
      reply: 'Sorry about that, we are looking into it.',
    });
    expectOk(await org.admin.api.post(path(), input), 204);
    const detail = (await processed(['ticket-1']))['ticket-1'];
    assert.equal(detail.conversation.object, 'conversation');
    assert.equal(detail.conversation.id, 'ticket-1');
    assert.equal(detail.conversation.subject, 'Password reset email not arriving');
    assert.equal(detail.conversation.source, 'intercom');
    assert.equal(detail.conversation.urls.source, input.metadata.url);
    assert.match(detail.conversation.urls.location, /\/v1\/orgs\/.+\/conversations\/ticket-1$/);
    assert.deepEqual(detail.parts, input.parts);
    assert.deepEqual(detail.metadata, { url: input.metadata.url, attributes: input.metadata.attributes, createdAt: input.metadata.createdAt });

    const listed = expectOk(await org.admin.api.get(path()));
    assert.deepEqual(
      listed.items.map((c: any) => c.id),
      ['ticket-1'],
    );

    const [item] = await issuesOf('ticket-1');
    assert.equal(item.issue.object, 'conversation-issue');
    assert.equal(item.issue.title, 'Password reset email not arriving');
    assert.match(item.issue.summary, /password reset but the reset email never arrived/);
    assert.ok(!item.issue.summary.includes('Sorry'), 'the team’s answer is not an issue');
    assert.equal(item.issue.conversation, 'ticket-1');
    assert.equal(item.conversation.id, 'ticket-1');
    assert.deepEqual(expectOk(await org.admin.api.get(issuesPath(`/${item.issue.id}`))), item);

    const cluster = await clusterById(item.issue.cluster);
    assert.ok(cluster);
    assert.match(cluster.label, /password|reset|email/i);
    assert.equal(cluster.icon, 'lock');
    assert.ok(cluster.summary.length > 0);
    assert.deepEqual(cluster.stats, { issues: 1, conversations: 1 });
    assert.deepEqual(cluster.sources, { intercom: 1 });
    assert.equal(cluster.weeklyPulse.length, 13);
    assert.deepEqual(cluster.weeklyPulse, [...new Array(12).fill(0), 1]);
  });

  it('ingests a batch (the second body form) and clusters incrementally: the same problem joins its cluster, a new one gets its own', async () => {
    const first = [
      conversation('pw-2', PASSWORD[1], { source: 'zendesk', daysAgo: 7 }),
      conversation('pw-3', PASSWORD[2], { source: 'zendesk', daysAgo: 14 }),
      conversation('pdf-1', PDF[0], { source: 'slack' }),
    ];
    expectOk(await org.admin.api.post(path(), first), 204);
    await processed(first.map((c) => c.id));
    const passwords = await clusterOf('ticket-1');
    assert.equal(await clusterOf('pw-2'), passwords);
    assert.equal(await clusterOf('pw-3'), passwords);
    const pdf = await clusterOf('pdf-1');
    assert.notEqual(pdf, passwords);
    const before = (await clusterById(passwords))!;

    const second = [
      conversation('pw-4', PASSWORD[3], { source: 'slack' }),
      conversation('pdf-2', PDF[1], { source: 'slack' }),
      conversation('domain-1', DOMAIN),
    ];
    expectOk(await org.admin.api.post(path(), second), 204);
    await processed(second.map((c) => c.id));
    assert.equal(await clusterOf('pw-4'), passwords);
    assert.equal(await clusterOf('pdf-2'), pdf);
    const domain = await clusterOf('domain-1');
    assert.ok(![passwords, pdf].includes(domain), 'a new problem, a new cluster');

    const after = (await clusterById(passwords))!;
    assert.equal(after.createdAt, before.createdAt, 'the same cluster, grown');
    assert.ok(after.updatedAt > before.updatedAt);
    assert.deepEqual(after.stats, { issues: 4, conversations: 4 });
    assert.deepEqual(after.sources, { intercom: 1, zendesk: 2, slack: 1 });
    // This week: ticket-1 and pw-4; a week ago: pw-2; two weeks ago: pw-3.
    assert.deepEqual(after.weeklyPulse.slice(-3), [1, 1, 2]);
    assert.equal(
      after.weeklyPulse.reduce((a, b) => a + b, 0),
      4,
    );
    assert.deepEqual((await clusterById(domain))!.stats, { issues: 1, conversations: 1 });
    await assertStatsTrue();
  });

  it('re-ingesting a conversation updates it, never duplicates it, and replaces its issues (cluster stats stay true)', async () => {
    const count = expectOk(await org.admin.api.get(path())).count;
    const passwords = await clusterOf('pw-4');
    const [old] = await issuesOf('pw-4');
    expectOk(await org.admin.api.post(path(), conversation('pw-4', SEARCH, { subject: 'Search misses pages', source: 'slack' })), 204);
    const detail = (await processed(['pw-4']))['pw-4'];
    assert.equal(detail.conversation.subject, 'Search misses pages');
    assert.equal(detail.parts[0].body, SEARCH);
    assert.equal(expectOk(await org.admin.api.get(path())).count, count);
    const issues = await issuesOf('pw-4');
    assert.equal(issues.length, 1);
    assert.notEqual(issues[0].issue.id, old.issue.id);
    assert.equal(issues[0].issue.title, 'Search misses pages');
    expectError(await org.admin.api.get(issuesPath(`/${old.issue.id}`)), 404);
    assert.notEqual(issues[0].issue.cluster, passwords);
    assert.deepEqual((await clusterById(passwords))!.stats, { issues: 3, conversations: 3 });
    await assertStatsTrue();
  });

  it('the same conversation posted 5 times at once is one conversation (never a 500)', async () => {
    const count = expectOk(await org.admin.api.get(path())).count;
    const input = conversation('twin', PDF[0], { source: 'slack' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => org.admin.api.post(path(), input)));
    for (const answer of answers) assert.equal(answer.status, 204, JSON.stringify(answer.body));
    await processed(['twin']);
    assert.equal(expectOk(await org.admin.api.get(path())).count, count + 1);
    assert.equal((await issuesOf('twin')).length, 1);
    await assertStatsTrue();
  });

  it('20 different conversations posted at once are all processed, and the stats add up', async () => {
    const texts = [...PASSWORD, ...PDF, DOMAIN, SEARCH];
    const inputs = Array.from({ length: 20 }, (_, i) => conversation(`burst-${i}`, texts[i % texts.length], { source: i % 2 ? 'zendesk' : 'intercom' }));
    const answers = await Promise.all(inputs.map((input) => org.admin.api.post(path(), input)));
    for (const answer of answers) assert.equal(answer.status, 204, JSON.stringify(answer.body));
    await processed(inputs.map((input) => input.id));
    await assertStatsTrue();
    // Jobs that ran side by side never made twin clusters: conversations saying the same thing share one.
    for (let t = 0; t < texts.length; t++) {
      const clusters = new Set(await Promise.all(inputs.filter((_, i) => i % texts.length === t).map((input) => clusterOf(input.id))));
      assert.equal(clusters.size, 1, `one cluster for “${texts[t]}”`);
    }
  });

  it("limits one organization's ingestion per minute (429 with Retry-After), not another's", async () => {
    const flooding = await stack.organization({ domain: 'conversations-flood.test', title: 'Flooding', roles: [] });
    const floodPath = `/v1/orgs/${flooding.id}/conversations`;
    // Batches count each conversation they carry (here one conversation sent a hundred times: one stored).
    const batch = Array.from({ length: 100 }, () => conversation('flood', PDF[1]));
    for (let sent = 0; sent < 600; sent += batch.length) assert.equal((await flooding.admin.api.post(floodPath, batch)).status, 204, `after ${sent}`);
    const refused = await flooding.admin.api.post(floodPath, conversation('one-more', PDF[0]));
    expectError(refused, 429);
    assert.match(refused.body.error.message, /retry in \d+ s/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    // Another organization ingests as usual meanwhile.
    expectOk(await org.admin.api.post(path(), conversation('not-limited', DOMAIN)), 204);
  });

  it('filters and pages every list with keyset cursors', async () => {
    const zendesk = expectOk(await org.admin.api.get(path('?source=zendesk&limit=1000')));
    assert.ok(zendesk.count > 0);
    assert.ok(zendesk.items.every((c: any) => c.source === 'zendesk'));

    const collect = async (first: string, key: (item: any) => string) => {
      const seen: string[] = [];
      let next: string | undefined = first;
      let count = 0;
      while (next) {
        const page: any = expectOk(await org.admin.api.get(next));
        count = page.count;
        assert.ok(page.items.length <= 3);
        seen.push(...page.items.map(key));
        next = page.next ? `${first}&page=${encodeURIComponent(page.next.page)}` : undefined;
      }
      assert.equal(new Set(seen).size, seen.length, 'no item twice');
      assert.equal(seen.length, count, 'every item once');
      return seen;
    };
    const conversations = await collect(path('?limit=3'), (c) => c.id);
    const dates = await Promise.all(conversations.slice(0, 4).map(async (id) => expectOk(await org.admin.api.get(path(`/${id}`))).conversation.createdAt));
    assert.deepEqual([...dates].sort().reverse(), dates, 'newest first');
    await collect(issuesPath('?limit=3'), (item) => item.issue.id);

    const byUpdate = await collect(clustersPath('?limit=3'), (c) => c.id);
    const byCreation = await collect(clustersPath('?limit=3&orderBy=createdAt&order=asc'), (c) => c.id);
    assert.deepEqual(new Set(byCreation), new Set(byUpdate));
    const clusters = await allClusters();
    const created = byCreation.map((id) => clusters.find((c) => c.id === id)!.createdAt);
    assert.deepEqual([...created].sort(), created, 'oldest first');
    const bySize = expectOk(await org.admin.api.get(clustersPath('?orderBy=issues'))).items.map((c: Cluster) => c.stats.issues);
    assert.deepEqual(
      [...bySize].sort((a, b) => b - a),
      bySize,
    );
    const updated = clusters.map((c) => c.updatedAt);
    assert.deepEqual([...updated].sort().reverse(), updated, 'default: most recently updated first');

    const passwords = await clusterOf('ticket-1');
    const inCluster = expectOk(await org.admin.api.get(issuesPath(`?cluster=${passwords}&limit=1000`)));
    assert.ok(inCluster.items.length > 0 && inCluster.items.every((item: any) => item.issue.cluster === passwords));
    assert.equal(inCluster.count, (await clusterById(passwords))!.stats.issues);
    assert.equal(expectOk(await org.admin.api.get(issuesPath('?cluster=no-such-cluster'))).count, 0);
    expectError(await org.admin.api.get(path('?page=forged.cursor')), 400, 'page');
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const good = conversation('bad-input', PDF[0]);
    const refused = async (body: unknown, field: string) => expectError(await org.admin.api.post(path(), body), 400, field);
    await refused({ ...good, id: undefined }, 'id');
    await refused({ ...good, parts: [] }, 'parts');
    await refused({ ...good, subject: 'x'.repeat(513) }, 'subject');
    await refused({ ...good, parts: [{ type: 'message', role: 'user', body: 'x'.repeat(50_001) }] }, 'parts.0.body');
    await refused({ ...good, parts: [{ type: 'message', role: 'robot', body: 'hi' }] }, 'parts.0.role');
    await refused({ ...good, metadata: { ...good.metadata, url: 'javascript:alert(1)' } }, 'metadata.url');
    await refused({ ...good, metadata: { ...good.metadata, createdAt: 'yesterday' } }, 'metadata.createdAt');
    await refused({ ...good, id: 'x'.repeat(257) }, 'id');
    await refused([good, { ...good, id: '' }], '1.id');
    await refused(
      Array.from({ length: 101 }, (_, i) => ({ ...good, id: `many-${i}` })),
      'body',
    );
    expectError(await org.admin.api.get(clustersPath('?orderBy=label')), 400, 'orderBy');
    expectError(await org.admin.api.get(clustersPath('?order=sideways')), 400, 'order');
    expectError(await org.admin.api.get(path('?limit=1001')), 400, 'limit');
    expectError(await org.admin.api.get(path('/bad-input')), 404);
  });

  it('lets members read, admins and installations with conversations:ingest ingest; 403 for other members, 404 for everyone else and for unknown ids', async () => {
    const [item] = await issuesOf('ticket-1');
    for (const member of [org.members.read, org.members.edit]) {
      expectError(await member.api.post(path(), conversation('by-member', PDF[0])), 403);
      expectOk(await member.api.get(path()));
      expectOk(await member.api.get(path('/ticket-1')));
      expectOk(await member.api.get(issuesPath()));
      expectOk(await member.api.get(issuesPath(`/${item.issue.id}`)));
      expectOk(await member.api.get(clustersPath()));
    }
    for (const stranger of [org.members.guest, org.outsider]) {
      expectError(await stranger.api.post(path(), conversation('by-stranger', PDF[0])), 404);
      expectError(await stranger.api.get(path()), 404);
      expectError(await stranger.api.get(path('/ticket-1')), 404);
      expectError(await stranger.api.get(issuesPath()), 404);
      expectError(await stranger.api.get(issuesPath(`/${item.issue.id}`)), 404);
      expectError(await stranger.api.get(clustersPath()), 404);
    }
    // The outsider's own organization holds none of these.
    expectError(await org.outsider.api.get(`/v1/orgs/${org.outsider.organizationId}/conversations/ticket-1`), 404);
    expectError(await org.outsider.api.get(`/v1/orgs/${org.outsider.organizationId}/conversations-issues/${item.issue.id}`), 404);
    expectError(await org.admin.api.get(path('/no-such-conversation')), 404);
    expectError(await org.admin.api.get(issuesPath('/no-such-issue')), 404);
    assert.ok(!expectOk(await org.admin.api.get(path('?limit=1000'))).items.some((c: any) => c.id.startsWith('by-')));

    // Installation tokens: the conversations:ingest scope lets them ingest and read.
    const script = (name: string) => `export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    if (event.type !== 'installation_setup') return new Response('ignored');
    const environment = JSON.parse(form.get('environment'));
    await fetch(${JSON.stringify(recorder.url)}, { method: 'POST', body: JSON.stringify({ name: ${JSON.stringify(name)}, token: environment.apiTokens.installation }) });
    return new Response('ok');
  },
};`;
    const vendor = await stack.organization({ domain: 'conversations-vendor.test', title: 'Vendor', roles: [] });
    for (const [name, scopes] of [
      ['ingesting-probe', ['conversations:ingest']],
      ['reading-probe', ['space:content:read']],
    ] as const) {
      expectOk(
        await vendor.admin.api.post(`/v1/integrations/${name}`, {
          organization: vendor.id,
          title: name,
          description: 'Reports its token',
          scopes,
          visibility: 'public',
          script: script(name),
        }),
      );
      expectOk(await org.admin.api.post(`/v1/integrations/${name}/installations`, { organization: org.id }), 201);
    }
    await waitFor('both installation tokens', async () => recorder.tokens.size === 2, 60_000);
    const ingesting = apiClient(stack.baseUrl, recorder.tokens.get('ingesting-probe'));
    const reading = apiClient(stack.baseUrl, recorder.tokens.get('reading-probe'));
    expectOk(await ingesting.post(path(), conversation('by-integration', PDF[1], { source: 'github' })), 204);
    // Without it, conversations are invisible to the token, as to an outsider.
    expectError(await reading.post(path(), conversation('by-reader', PDF[1])), 404);
    expectError(await reading.get(path()), 404);
    expectOk(await ingesting.get(path()));
    await processed(['by-integration']);
    // Its token is scoped to the organization that installed it.
    expectError(await ingesting.post(`/v1/orgs/${vendor.id}/conversations`, conversation('elsewhere', PDF[1])), 404);
  });

  it('publishes the six operations and their schemas in the API document', async () => {
    const document = expectOk(await org.admin.api.get('/v1/openapi.json'));
    const orgPath = '/v1/orgs/{organizationId}';
    assert.ok(document.paths[`${orgPath}/conversations`]?.get && document.paths[`${orgPath}/conversations`]?.post);
    assert.ok(document.paths[`${orgPath}/conversations/{conversationId}`]?.get);
    assert.ok(document.paths[`${orgPath}/conversations-issues`]?.get);
    assert.ok(document.paths[`${orgPath}/conversations-issues/{issueId}`]?.get);
    assert.ok(document.paths[`${orgPath}/conversations-clusters`]?.get);
    for (const name of ['Conversation', 'ConversationInput', 'ConversationIssue', 'ConversationsIssuesCluster', 'ConversationPartMessage'])
      assert.ok(document.components.schemas[name], `schema ${name}`);
    const pulse = document.components.schemas.ConversationsIssuesCluster.properties.weeklyPulse;
    assert.equal(pulse.minItems, 13);
    assert.equal(pulse.maxItems, 13);
  });
});
