import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectOk, startTestStack, waitFor, type TestOrganization, type TestStack } from '@quire/testkit';

const API_KEY = 'sk-test-provider-key-0123456789';

/** A topic per keyword, for the fake embeddings: texts about the same thing get the same direction. */
const TOPICS = [/password|reset/i, /pdf|export/i, /domain|certificate/i];

/** What the fake provider was asked. */
interface Call {
  path: string;
  authorization?: string;
  body: any;
}

/**
 * A fake OpenAI-compatible provider on 127.0.0.1: chat completions extract one issue per
 * conversation ("LLM: " + the subject) and name clusters ("LLM cluster: …"); embeddings point
 * along the topic of the text. In `failing` mode it answers 500 to everything.
 */
async function startFakeProvider(): Promise<{ url: string; calls: Call[]; mode: { failing: boolean }; server: Server }> {
  const calls: Call[] = [];
  const mode = { failing: false };
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  };
  const server = createServer(async (req, res) => {
    const body = await read(req);
    calls.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
    const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (mode.failing) return res.writeHead(500).end('upstream exploded');
    if (req.url === '/v1/embeddings') {
      const data = (body.input as string[]).map((text, index) => ({
        index,
        embedding: TOPICS.map((topic) => (topic.test(text) ? 1 : 0.01)),
      }));
      return json({ data });
    }
    if (req.url === '/v1/chat/completions') {
      const [system, user] = body.messages as Array<{ content: string }>;
      const content = system.content.includes('List the distinct problems')
        ? {
            issues: [{ title: `LLM: ${/Subject: (.*)/.exec(user.content)?.[1] ?? 'no subject'}`, summary: `The user says: ${user.content.split('\n').pop()}` }],
          }
        : { label: `LLM cluster: ${user.content.split('\n')[1]?.replace(/^- /, '')}`, icon: 'robot', summary: 'A group of issues named by the provider.' };
      return json({ choices: [{ message: { role: 'assistant', content: JSON.stringify(content) } }] });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, calls, mode, server };
}

/** The optional provider: used for extraction, labels and embeddings when configured; a failing one falls back to the built-in pipeline. */
describe('insights: conversations with an OpenAI-compatible provider', () => {
  let stack: TestStack;
  let org: TestOrganization<'read'>;
  let provider: Awaited<ReturnType<typeof startFakeProvider>>;
  const path = (suffix = '') => `/v1/orgs/${org.id}/conversations${suffix}`;

  const ingest = async (id: string, subject: string, body: string) => {
    const input = { id, subject, metadata: { attributes: { source: 'intercom' } }, parts: [{ type: 'message', role: 'user', body }] };
    expectOk(await org.admin.api.post(path(), input), 204);
    await waitFor(`${id} processed`, async () => !!expectOk(await org.admin.api.get(path(`/${id}`))).conversation.processedAt, 60_000);
    return expectOk(await org.admin.api.get(`/v1/orgs/${org.id}/conversations-issues?conversation=${id}`)).items.map((item: any) => item.issue);
  };

  beforeAll(async () => {
    provider = await startFakeProvider();
    stack = await startTestStack({
      INSIGHTS_LLM_URL: provider.url,
      INSIGHTS_LLM_API_KEY: API_KEY,
      INSIGHTS_LLM_MODEL: 'fake-chat',
      INSIGHTS_EMBEDDINGS_MODEL: 'fake-embeddings',
      PROVIDER_TIMEOUT_MS: '5000',
    });
    org = await stack.organization({ domain: 'provider.test', title: 'Provider', roles: ['read'] });
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise<void>((resolve) => (provider?.server ? provider.server.close(() => resolve()) : resolve()));
  });

  it('extracts issues, labels clusters and clusters by embeddings with the provider', async () => {
    const [first] = await ingest('llm-1', 'Reset mail missing', 'I never get the password reset email.');
    assert.equal(first.title, 'LLM: Reset mail missing');
    assert.equal(first.summary, 'The user says: [user] I never get the password reset email.');
    // Worded nothing alike, about the same thing: the embeddings put them together.
    const [second] = await ingest('llm-2', 'Locked out', 'How do I change a forgotten password?');
    assert.equal(second.cluster, first.cluster);
    const [third] = await ingest('llm-3', 'Export broken', 'The PDF export fails.');
    assert.notEqual(third.cluster, first.cluster);

    const clusters = expectOk(await org.admin.api.get(`/v1/orgs/${org.id}/conversations-clusters`)).items;
    const passwords = clusters.find((cluster: any) => cluster.id === first.cluster);
    assert.match(passwords.label, /^LLM cluster: /);
    assert.equal(passwords.icon, 'robot');
    assert.equal(passwords.summary, 'A group of issues named by the provider.');
    assert.deepEqual(passwords.stats, { issues: 2, conversations: 2 });

    const chat = provider.calls.filter((call) => call.path === '/v1/chat/completions');
    assert.ok(chat.length >= 3 && chat.every((call) => call.body.model === 'fake-chat' && call.authorization === `Bearer ${API_KEY}`));
    assert.ok(provider.calls.some((call) => call.path === '/v1/embeddings' && call.body.model === 'fake-embeddings'));
  });

  it('falls back to the built-in pipeline when the provider fails (a warning, no secret in the logs)', async () => {
    provider.mode.failing = true;
    const before = provider.calls.length;
    const issues = await ingest('fallback-1', 'Certificate error on our custom domain', 'Our custom domain shows a certificate error. How do we fix it?');
    assert.ok(provider.calls.length > before, 'the provider was asked');
    assert.equal(issues.length, 1);
    assert.equal(issues[0].title, 'Certificate error on our custom domain');
    const clusters = expectOk(await org.admin.api.get(`/v1/orgs/${org.id}/conversations-clusters`)).items;
    const cluster = clusters.find((c: any) => c.id === issues[0].cluster);
    assert.match(cluster.label, /domain|certificate|custom/i);
    await waitFor('the fallback warning', async () => stack.output().includes('using the built-in pipeline'), 10_000);
    assert.ok(!stack.output().includes(API_KEY), 'the API key is never logged');
  });
});
