import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import {
  assertMatchesOpenApi,
  expectOk,
  openApiErrors,
  sharedTestStack,
  startFakeOpenAi,
  startTestStack,
  waitFor,
  type FakeProvider,
  type TestAccount,
  type TestStack,
} from '@quire/testkit';

const API_KEY = 'test-openai-secret-7777';

/** A space with two pages, and a translation of it into French, made by `admin` of `organizationId`. */
async function seedTranslation(admin: TestAccount, organizationId: string, instructionsText: string) {
  const space = expectOk(await admin.api.post(`/v1/orgs/${organizationId}/spaces`, { title: 'Handbook' }), 201).id;
  const cr = expectOk(await admin.api.post(`/v1/spaces/${space}/change-requests`, { subject: 'Seed' }), 201);
  expectOk(
    await admin.api.post(`/v1/spaces/${space}/change-requests/${cr.id}/content?compat=false`, {
      changes: [
        { type: 'insert_page', ref: 'intro', title: 'Introduction', slug: 'intro', markdown: 'Read this first, then run `make docs`.' },
        { type: 'insert_page', into: 'intro', title: 'Details', slug: 'details', markdown: 'More about [the setup](setup.md).' },
      ],
    }),
  );
  expectOk(await admin.api.post(`/v1/spaces/${space}/change-requests/${cr.id}/merge`));
  const instructions = {
    object: 'document',
    data: { schemaVersion: 1 },
    nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: instructionsText, marks: [] }] }] }],
  };
  return expectOk(await admin.api.post(`/v1/orgs/${organizationId}/translations`, { source: { space, language: 'en' }, language: 'fr', instructions }), 201);
}

/** Runs the translation and waits for the run to end: the translation then. */
async function runToEnd(admin: TestAccount, translation: any) {
  const url = `/v1/orgs/${translation.urls.location.split('/v1/orgs/')[1]}`;
  expectOk(await admin.api.post(`${url}/run`), 204);
  let current: any;
  await waitFor(
    'the run to end',
    async () => {
      current = expectOk(await admin.api.get(url));
      return current.stats.runs >= 1 && (current.status === 'completed' || current.status === 'failed');
    },
    60_000,
  );
  return current;
}

/** The provider settings other than LibreTranslate's: none at all, and an OpenAI-compatible chat API. */
describe('insights: translation providers (end to end)', () => {
  let bare: TestStack;
  let chat: TestStack;
  let openAi: FakeProvider;

  beforeAll(async () => {
    openAi = await startFakeOpenAi();
    [bare, chat] = await Promise.all([
      // No provider is the default (TRANSLATION_PROVIDER none): the worker's shared stack has none.
      sharedTestStack(),
      startTestStack({
        TRANSLATION_PROVIDER: 'openai',
        TRANSLATION_PROVIDER_URL: `${openAi.url}/v1`,
        TRANSLATION_PROVIDER_API_KEY: API_KEY,
        TRANSLATION_PROVIDER_MODEL: 'test-model',
      }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([bare?.stop(), chat?.stop()]);
    await openAi?.close();
  });

  it('fails a run with a clear reason when no provider is configured, and copies nothing', async () => {
    const admin = await bare.account(['bootstrap', '--email', 'admin@bare.test', '--org', 'Bare']);
    const translation = await seedTranslation(admin, admin.organizationId, 'Be concise.');
    const failed = await runToEnd(admin, translation);
    assert.equal(failed.status, 'failed');
    assert.match(failed.failure.reason, /No translation provider is configured.*TRANSLATION_PROVIDER/);
    assert.equal(failed.result, undefined, 'no target space made');
    assert.equal(failed.stats.runs, 1);
    assert.equal(failed.stats.latestPages, 0);
    // GitBook's Translation but for the status it lacks.
    assert.deepEqual(
      openApiErrors('Translation', failed).filter((error) => !error.startsWith('/status ')),
      [],
    );
    const spaces = expectOk(await admin.api.get(`/v1/orgs/${admin.organizationId}/spaces`));
    assert.equal(spaces.count, 1, 'only the source space');
  });

  it('translates through an OpenAI-compatible chat API, the instructions given as guidance', async () => {
    const admin = await chat.account(['bootstrap', '--email', 'admin@chat.test', '--org', 'Chat']);
    const translation = await seedTranslation(admin, admin.organizationId, 'Address the reader informally.');
    const done = await runToEnd(admin, translation);
    assert.equal(done.status, 'completed', JSON.stringify(done.failure));
    assertMatchesOpenApi('Translation', done);
    assert.equal(openAi.calls.length, 1, 'all texts in one call');
    const [call] = openAi.calls;
    assert.equal(call.body.model, 'test-model');
    assert.equal(call.authorization, `Bearer ${API_KEY}`);
    const system = (call.body.messages as any[]).find((message) => message.role === 'system').content as string;
    assert.match(system, /Address the reader informally\./);
    assert.match(system, /English.*French/);
    assert.deepEqual(call.texts.sort(), ['Details', 'Introduction', 'More about ⟦0⟧the setup⟦1⟧.', 'Read this first, then run ⟦0⟧.'].sort());
    assert.ok(!chat.output().includes(API_KEY));

    const pages = expectOk(await admin.api.get(`/v1/spaces/${done.result.space}/content`)).pages;
    assert.equal(pages[0].title, 'INTRODUCTION');
    assert.equal(pages[0].markdown.trimEnd(), 'READ THIS FIRST, THEN RUN `make docs`.');
    assert.equal(pages[0].pages[0].title, 'DETAILS');
    assert.equal(pages[0].pages[0].markdown.trimEnd(), 'MORE ABOUT [THE SETUP](setup.md).');
    assert.equal(done.stats.latestPages, 2);
  });
});
