import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import {
  assertMatchesOpenApi,
  expectError,
  expectOk,
  openApiErrors,
  shout,
  startFakeLibreTranslate,
  startTestStack,
  waitFor,
  wordsOf,
  type FakeProvider,
  type TestAccount,
  type TestOrganization,
  type TestStack,
} from '@quire/testkit';

/** A key the provider gets and nobody else may see: not in failures, not in the logs. */
const API_KEY = 'test-provider-secret-4242';

const instructions = (text: string) => ({
  object: 'document',
  data: { schemaVersion: 1 },
  nodes: [
    {
      object: 'block',
      type: 'paragraph',
      key: 'p1',
      isVoid: false,
      data: { align: 'start' },
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
    },
  ],
});

const START = [
  'Welcome to the product documentation.',
  '',
  'Install it with `npm install quire` and read [the guide](https://example.com/guide) today.',
  '',
  '```bash',
  'echo "keep this code"',
  '```',
  '',
  'Visit https://quire.example.org/status for uptime.',
  '',
  'Hello {{ space.title }} readers, see {% include "snippet" %} below.',
].join('\n');
const INSTALL = 'Run the installer and follow the prompts.';
const REFERENCE = ['Each endpoint answers JSON.', '', '| Field | Meaning |', '|---|---|', '| id | Unique identifier |'].join('\n');

/** Translations through the gateway, with a LibreTranslate-compatible fake provider. */
describe('insights: translations (end to end, LibreTranslate provider)', () => {
  let stack: TestStack;
  let provider: FakeProvider;
  let acme: TestOrganization<'read' | 'guest'>;
  let admin: TestAccount;
  let sourceSpace: string;
  let otherOrgSpace: string;
  let pageIds: Record<'start' | 'install' | 'reference', string>;

  const translations = (org = acme.id) => `/v1/orgs/${org}/translations`;
  const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages ?? [])]);
  const contentOf = async (spaceId: string) => flat(expectOk(await admin.api.get(`/v1/spaces/${spaceId}/content`)).pages);
  const pageOf = async (spaceId: string, id: string) => (await contentOf(spaceId)).find((page) => page.id === id);
  /** Changes merged into a space through a change request. */
  const change = async (spaceId: string, changes: unknown[]) => {
    const cr = expectOk(await admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Edit' }), 201);
    const result = expectOk(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`, { changes }));
    expectOk(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`));
    return result;
  };
  /** A translation's shape: GitBook's Translation, but for `failed`, a status GitBook does not have. */
  const assertShape = (translation: any) => {
    const errors = openApiErrors('Translation', translation).filter((error) => !(translation.status === 'failed' && error.startsWith('/status ')));
    assert.deepEqual(errors, []);
  };
  const create = async (fields: Record<string, unknown> = {}) =>
    expectOk(await admin.api.post(translations(), { source: { space: sourceSpace, language: 'en' }, language: 'fr', ...fields }), 201);
  /** Asks a run and waits until no run is left (pending or running): the translation then. */
  const run = async (id: string, expected: 'completed' | 'failed' = 'completed') => {
    const before = expectOk(await admin.api.get(`${translations()}/${id}`)).stats.runs;
    expectOk(await admin.api.post(`${translations()}/${id}/run`), 204);
    return settle(id, before + 1, expected);
  };
  const settle = async (id: string, runs: number, expected: 'completed' | 'failed') => {
    let translation: any;
    await waitFor(
      `translation ${id} to finish run ${runs}`,
      async () => {
        translation = expectOk(await admin.api.get(`${translations()}/${id}`));
        return translation.stats.runs >= runs && (translation.status === 'completed' || translation.status === 'failed');
      },
      60_000,
    );
    assert.equal(translation.status, expected, JSON.stringify(translation.failure));
    assertShape(translation);
    return translation;
  };

  beforeAll(async () => {
    provider = await startFakeLibreTranslate();
    stack = await startTestStack({ TRANSLATION_PROVIDER: 'libretranslate', TRANSLATION_PROVIDER_URL: provider.url, TRANSLATION_PROVIDER_API_KEY: API_KEY });
    acme = await stack.organization({ domain: 'acme.test', title: 'Acme', roles: ['read', 'guest'] });
    admin = acme.admin;
    sourceSpace = expectOk(await admin.api.post(`/v1/orgs/${acme.id}/spaces`, { title: 'Product docs' }), 201).id;
    otherOrgSpace = expectOk(await acme.outsider.api.post(`/v1/orgs/${acme.outsider.organizationId}/spaces`, { title: 'Elsewhere' }), 201).id;
    await change(sourceSpace, [
      { type: 'insert_page', ref: 'start', title: 'Getting started', slug: 'getting-started', description: 'First steps with the product', markdown: START },
      { type: 'insert_page', ref: 'install', into: 'start', title: 'Installation', slug: 'installation', markdown: INSTALL },
      { type: 'insert_page', ref: 'reference', title: 'API reference', slug: 'reference', markdown: REFERENCE },
      { type: 'update_page', page: 'reference', layout: { width: 'wide', outline: false } },
    ]);
    const pages = await contentOf(sourceSpace);
    const byTitle = (title: string) => pages.find((page) => page.title === title).id;
    pageIds = { start: byTitle('Getting started'), install: byTitle('Installation'), reference: byTitle('API reference') };
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
    await provider?.close();
  });

  it('creates, reads, lists, updates and deletes translations (admins), shaped as GitBook documents them', async () => {
    const made = await admin.api.post(translations(), {
      source: { space: sourceSpace, language: 'en' },
      language: 'de',
      instructions: instructions('Use the formal Sie.'),
    });
    const translation = expectOk(made, 201);
    assertMatchesOpenApi('Translation', translation);
    assert.equal(made.headers.get('location'), translation.urls.location);
    assert.equal(translation.urls.location, `${stack.baseUrl}/v1/orgs/${acme.id}/translations/${translation.id}`);
    assert.equal(translation.object, 'translation');
    assert.equal(translation.status, 'pending');
    assert.deepEqual(translation.source, { space: sourceSpace, language: 'en' });
    assert.equal(translation.language, 'de');
    assert.deepEqual(translation.instructions, instructions('Use the formal Sie.'));
    assert.equal(translation.result, undefined);
    assert.deepEqual(translation.stats, { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 });
    assert.deepEqual(translation.permissions, { view: true, edit: true });
    const url = `${translations()}/${translation.id}`;
    assert.deepEqual(expectOk(await admin.api.get(url)), translation);

    // Without instructions: an empty document. Keys of any name are kept in `data`.
    const plain = await create({ language: 'es', instructions: { object: 'document', data: { 'odd.key': 1, $x: true }, nodes: [] } });
    assertMatchesOpenApi('Translation', plain);
    assert.deepEqual(plain.instructions, { object: 'document', data: { schemaVersion: 1, 'odd.key': 1, $x: true }, nodes: [] });
    assert.deepEqual((await create({ language: 'it' })).instructions, { object: 'document', data: { schemaVersion: 1 }, nodes: [] });

    // A list, newest first, page by page.
    const all = expectOk(await admin.api.get(translations()));
    assertMatchesOpenApi('List', all);
    all.items.forEach(assertShape);
    assert.ok(all.count >= 3);
    assert.equal(all.items.length, all.count);
    const first = expectOk(await admin.api.get(`${translations()}?limit=2`));
    assert.equal(first.items.length, 2);
    const second = expectOk(await admin.api.get(`${translations()}?limit=2&page=${encodeURIComponent(first.next.page)}`));
    assert.deepEqual(
      [...first.items, ...second.items].map((t: any) => t.id),
      all.items.slice(0, first.items.length + second.items.length).map((t: any) => t.id),
    );
    expectError(await admin.api.get(`${translations()}?limit=0`), 400, 'limit');
    expectError(await admin.api.get(`${translations()}?page=forged`), 400, 'page');

    // Instructions replaced.
    const updated = expectOk(await admin.api.put(url, { instructions: instructions('Use the informal du.') }));
    assertMatchesOpenApi('Translation', updated);
    assert.deepEqual(updated.instructions, instructions('Use the informal du.'));
    assert.ok(updated.updatedAt >= translation.updatedAt);
    assert.deepEqual(expectOk(await admin.api.get(url)).instructions, instructions('Use the informal du.'));

    // Deleted: 204, then 204 again, and gone.
    expectOk(await admin.api.delete(url), 204);
    expectOk(await admin.api.delete(url), 204);
    expectError(await admin.api.get(url), 404);
    assert.ok(!expectOk(await admin.api.get(translations())).items.some((t: any) => t.id === translation.id));
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const body = { source: { space: sourceSpace, language: 'en' }, language: 'fr' };
    expectError(await admin.api.post(translations(), { ...body, source: { space: 'no-such-space', language: 'en' } }), 400, 'source.space');
    expectError(await admin.api.post(translations(), { ...body, source: { space: otherOrgSpace, language: 'en' } }), 400, 'source.space');
    expectError(await admin.api.post(translations(), { ...body, language: 'en' }), 400, 'language');
    expectError(await admin.api.post(translations(), { ...body, language: 'xx' }), 400, 'language');
    expectError(await admin.api.post(translations(), { ...body, source: { space: sourceSpace, language: 'klingon' } }), 400, 'source.language');
    expectError(await admin.api.post(translations(), { language: 'fr' }), 400, 'source');
    expectError(await admin.api.post(translations(), { ...body, instructions: { object: 'paragraph', nodes: [] } }), 400, 'instructions.object');
    expectError(
      await admin.api.post(translations(), { ...body, instructions: { object: 'document', data: {}, nodes: [{ object: 'block' }] } }),
      400,
      'instructions.nodes.0',
    );
    expectError(await admin.api.post(translations(), { ...body, instructions: 'translate well' }), 400, 'instructions');
    expectError(await admin.api.post(translations(), { ...body, extra: true }), 400, 'extra');
    const translation = await create();
    const url = `${translations()}/${translation.id}`;
    expectError(await admin.api.put(url, {}), 400, 'instructions');
    expectError(
      await admin.api.put(url, { instructions: { object: 'document', data: { schemaVersion: 0 }, nodes: [] } }),
      400,
      'instructions.data.schemaVersion',
    );
    expectError(await admin.api.put(url, { instructions: { object: 'document', data: {}, nodes: [], meta: {} } }), 400, 'instructions');
    expectOk(await admin.api.delete(url), 204);
  });

  it('lets members who can open the source space read (not write), and nobody else see anything', async () => {
    const translation = await create({ language: 'nl' });
    const url = `${translations()}/${translation.id}`;
    const reader = acme.members.read;
    const seen = expectOk(await reader.api.get(url));
    assertMatchesOpenApi('Translation', seen);
    assert.deepEqual(seen.permissions, { view: true, edit: false });
    assert.ok(expectOk(await reader.api.get(translations())).items.some((t: any) => t.id === translation.id && t.permissions.edit === false));
    expectError(await reader.api.post(translations(), { source: { space: sourceSpace, language: 'en' }, language: 'pl' }), 403);
    expectError(await reader.api.put(url, { instructions: instructions('x') }), 403);
    expectError(await reader.api.post(`${url}/run`), 403);
    expectError(await reader.api.delete(url), 403);

    // A member who cannot open the source space: the translation does not exist for them.
    const hiddenSpace = expectOk(await admin.api.post(`/v1/orgs/${acme.id}/spaces`, { title: 'Board only' }), 201).id;
    expectOk(await admin.api.patch(`/v1/spaces/${hiddenSpace}`, { defaultLevel: null }));
    expectError(await reader.api.get(`/v1/spaces/${hiddenSpace}`), 404);
    const hidden = await create({ source: { space: hiddenSpace, language: 'en' }, language: 'pl' });
    const second = await create({ language: 'pt' });
    const hiddenUrl = `${translations()}/${hidden.id}`;
    expectError(await reader.api.get(hiddenUrl), 404);
    expectError(await reader.api.post(`${hiddenUrl}/run`), 404);
    expectError(await reader.api.put(hiddenUrl, { instructions: instructions('x') }), 404);
    const listed = expectOk(await reader.api.get(translations()));
    assert.ok(!listed.items.some((t: any) => t.id === hidden.id));
    assert.equal(listed.count, listed.items.length, 'the count is of what the member sees');
    const paged = expectOk(await reader.api.get(`${translations()}?limit=1`));
    assert.equal(paged.items.length, 1);
    const rest = expectOk(await reader.api.get(`${translations()}?limit=1000&page=${encodeURIComponent(paged.next.page)}`));
    assert.deepEqual(
      [...paged.items, ...rest.items].map((t: any) => t.id),
      listed.items.map((t: any) => t.id),
    );
    expectOk(await admin.api.delete(hiddenUrl), 204);
    expectOk(await admin.api.delete(`${translations()}/${second.id}`), 204);

    // A guest (no role in the organization) is an outsider here.
    expectError(await acme.members.guest.api.get(url), 404);
    expectError(await acme.members.guest.api.get(translations()), 404);

    // Outsiders: the organization itself is not theirs to see.
    const outsider = acme.outsider;
    expectError(await outsider.api.get(translations()), 404);
    expectError(await outsider.api.get(url), 404);
    expectError(await outsider.api.post(translations(), { source: { space: sourceSpace, language: 'en' }, language: 'pl' }), 404);
    expectError(await outsider.api.put(url, { instructions: instructions('x') }), 404);
    expectError(await outsider.api.post(`${url}/run`), 404);
    expectError(await outsider.api.delete(url), 404);
    // Their own organization does not hold it either.
    expectError(await outsider.api.get(`${translations(acme.outsider.organizationId)}/${translation.id}`), 404);

    // Unknown ids.
    expectError(await admin.api.get(`${translations()}/no-such-translation`), 404);
    expectError(await admin.api.put(`${translations()}/no-such-translation`, { instructions: instructions('x') }), 404);
    expectError(await admin.api.post(`${translations()}/no-such-translation/run`), 404);
    expectOk(await admin.api.delete(`${translations()}/no-such-translation`), 204);
    expectOk(await admin.api.delete(url), 204);
  });

  let french: any;

  it('runs a first time: makes the target space, mirrors the tree and translates prose only', async () => {
    french = await create({ instructions: instructions('Keep product names in English.') });
    provider.reset();
    const done = await run(french.id);
    assert.ok(done.result, 'the run made a target');
    assert.equal(done.result.language, 'fr');
    assert.notEqual(done.result.space, sourceSpace);
    const target = expectOk(await admin.api.get(`/v1/spaces/${done.result.space}`));
    assert.equal(target.language, 'fr');
    assert.equal(target.revision, done.result.revision);
    assert.equal(target.organization, acme.id);
    assert.equal(target.title, 'Product docs (fr)');

    // The same tree (same page ids), titles, descriptions and bodies translated.
    const source = await contentOf(sourceSpace);
    const translated = await contentOf(done.result.space);
    assert.deepEqual(
      translated.map((page) => [page.id, page.slug, page.pages?.length ?? 0]),
      source.map((page) => [page.id, page.slug, page.pages?.length ?? 0]),
    );
    const start = translated.find((page) => page.id === pageIds.start);
    assert.equal(start.title, 'GETTING STARTED');
    assert.equal(start.description, 'FIRST STEPS WITH THE PRODUCT');
    const expectedStart = [
      'WELCOME TO THE PRODUCT DOCUMENTATION.',
      '',
      'INSTALL IT WITH `npm install quire` AND READ [THE GUIDE](https://example.com/guide) TODAY.',
      '',
      '```bash',
      'echo "keep this code"',
      '```',
      '',
      'VISIT https://quire.example.org/status FOR UPTIME.',
      '',
      'HELLO {{ space.title }} READERS, SEE {% include "snippet" %} BELOW.',
    ].join('\n');
    assert.equal(start.markdown.trimEnd(), expectedStart);
    assert.equal(translated.find((page) => page.id === pageIds.install).markdown.trimEnd(), shout(INSTALL));
    const reference = translated.find((page) => page.id === pageIds.reference);
    assert.match(reference.markdown, /^EACH ENDPOINT ANSWERS JSON\.$/m);
    assert.match(reference.markdown, /^\| FIELD \| MEANING \|$/m);
    assert.match(reference.markdown, /^\| ID \| UNIQUE IDENTIFIER \|$/m);
    // Laid out as its source page is.
    assert.deepEqual(
      translated.map((page) => page.layout),
      source.map((page) => page.layout),
    );
    assert.deepEqual([reference.layout.width, reference.layout.outline], ['wide', false]);

    // What the provider got: the texts with placeholders, batched in one call, with the key, languages and format.
    assert.equal(provider.calls.length, 1);
    const [call] = provider.calls;
    assert.deepEqual([call.body.source, call.body.target, call.body.format, call.body.api_key], ['en', 'fr', 'text', API_KEY]);
    assert.ok(provider.texts().includes('Install it with ⟦0⟧ and read ⟦1⟧the guide⟦2⟧ today.'), JSON.stringify(provider.texts()));
    assert.ok(!provider.texts().some((text) => text.includes('npm install') || text.includes('keep this code') || text.includes('space.title')));

    // True stats: every page translated, the words sent.
    assert.equal(done.stats.runs, 1);
    assert.equal(done.stats.latestPages, 3);
    assert.equal(done.stats.totalPages, 3);
    assert.equal(done.stats.latestWords, wordsOf(provider.texts()));
    assert.equal(done.stats.totalWords, done.stats.latestWords);
    assert.ok(done.stats.latestRunDuration >= 1 && done.stats.totalDuration === done.stats.latestRunDuration);
  });

  it('runs again incrementally: only the pages whose source changed go to the provider', async () => {
    const before = expectOk(await admin.api.get(`${translations()}/${french.id}`));
    provider.reset();
    const unchanged = await run(french.id);
    assert.equal(provider.calls.length, 0, 'nothing changed: nothing sent');
    assert.equal(unchanged.stats.latestPages, 0);
    assert.equal(unchanged.stats.latestWords, 0);
    assert.equal(unchanged.result.revision, before.result.revision, 'nothing written');

    await change(sourceSpace, [{ type: 'update_page', page: pageIds.install, markdown: 'Download the installer, then start it.' }]);
    provider.reset();
    const done = await run(french.id);
    assert.deepEqual(provider.texts().sort(), ['Download the installer, then start it.', 'Installation'].sort());
    assert.equal(done.stats.runs, 3);
    assert.equal(done.stats.latestPages, 1);
    assert.equal(done.stats.totalPages, 3, 'unique pages');
    assert.equal(done.stats.latestWords, 7);
    assert.equal(done.stats.totalWords, before.stats.totalWords + 7);
    assert.notEqual(done.result.revision, before.result.revision);
    assert.equal((await pageOf(done.result.space, pageIds.install)).markdown.trimEnd(), 'DOWNLOAD THE INSTALLER, THEN START IT.');
  });

  it('keeps hand edits of the target unless their source page changed, removes what the source removed, keeps pages added by hand', async () => {
    const target = french.result?.space ?? expectOk(await admin.api.get(`${translations()}/${french.id}`)).result.space;
    await change(target, [
      { type: 'update_page', page: pageIds.start, markdown: 'Bienvenue, édité à la main.' },
      { type: 'update_page', page: pageIds.reference, markdown: 'Référence éditée à la main.' },
      { type: 'insert_page', title: 'Notes du traducteur', slug: 'notes', markdown: 'Ajoutée à la main.' },
    ]);
    await change(sourceSpace, [{ type: 'update_page', page: pageIds.reference, markdown: 'Each endpoint answers JSON, always.' }]);
    provider.reset();
    await run(french.id);
    assert.deepEqual(provider.texts().sort(), ['API reference', 'Each endpoint answers JSON, always.'].sort());
    let pages = await contentOf(target);
    assert.equal(pages.find((page) => page.id === pageIds.start).markdown.trimEnd(), 'Bienvenue, édité à la main.', 'source unchanged: the hand edit stays');
    assert.equal(
      pages.find((page) => page.id === pageIds.reference).markdown.trimEnd(),
      'EACH ENDPOINT ANSWERS JSON, ALWAYS.',
      'source changed: translated again',
    );
    assert.ok(
      pages.some((page) => page.title === 'Notes du traducteur'),
      'a page added by hand stays',
    );

    await change(sourceSpace, [{ type: 'delete_page', page: pageIds.reference }]);
    provider.reset();
    const done = await run(french.id);
    assert.equal(provider.calls.length, 0);
    pages = await contentOf(target);
    assert.ok(!pages.some((page) => page.id === pageIds.reference), 'removed from the source: removed from the target');
    assert.ok(pages.some((page) => page.id === pageIds.start));
    assert.ok(pages.some((page) => page.title === 'Notes du traducteur'));
    assert.equal(done.stats.latestPages, 0);
  });

  it('fails a run whose provider fails midway, with a reason and no secret, and leaves the target as it was', async () => {
    const before = expectOk(await admin.api.get(`${translations()}/${french.id}`));
    // A page of 150 paragraphs: two provider calls (100 texts at most each); the second one fails, also when tried again.
    const long = Array.from({ length: 150 }, (_, i) => `Paragraph number ${i} explains one more detail.`).join('\n\n');
    await change(sourceSpace, [{ type: 'update_page', page: pageIds.start, markdown: long }]);
    provider.reset();
    provider.failAfter = 1;
    const failed = await run(french.id, 'failed');
    assert.ok(provider.calls.length >= 2);
    assert.match(failed.failure.reason, /LibreTranslate.*500/);
    assert.ok(!JSON.stringify(failed).includes(API_KEY));
    assert.ok(!JSON.stringify(failed).includes(provider.url));
    assert.ok(!stack.output().includes(API_KEY), 'the key is not in the logs');
    assert.equal(failed.result.revision, before.result.revision);
    assert.equal(expectOk(await admin.api.get(`/v1/spaces/${failed.result.space}`)).revision, before.result.revision, 'the target did not move');
    assert.equal((await pageOf(failed.result.space, pageIds.start)).markdown.trimEnd(), 'Bienvenue, édité à la main.');
    assert.equal(failed.stats.runs, before.stats.runs + 1);
    assert.equal(failed.stats.latestPages, 0);
    assert.equal(failed.stats.totalWords, before.stats.totalWords);

    // The provider back: the next run translates it, and the failure is gone.
    provider.reset();
    const done = await run(french.id);
    assert.equal(done.failure, undefined);
    assert.equal(done.stats.latestPages, 1);
    assert.match((await pageOf(done.result.space, pageIds.start)).markdown, /^PARAGRAPH NUMBER 149 EXPLAINS ONE MORE DETAIL\.$/m);
  });

  it('runs a run asked during another one after it, never both at once', async () => {
    await change(sourceSpace, [{ type: 'update_page', page: pageIds.install, markdown: 'Start the installer.' }]);
    const before = expectOk(await admin.api.get(`${translations()}/${french.id}`));
    provider.reset();
    provider.delayMs = 1_500;
    expectOk(await admin.api.post(`${translations()}/${french.id}/run`), 204);
    await waitFor('the run to start', async () => expectOk(await admin.api.get(`${translations()}/${french.id}`)).status === 'running', 20_000);
    expectOk(await admin.api.post(`${translations()}/${french.id}/run`), 204);
    expectOk(await admin.api.post(`${translations()}/${french.id}/run`), 204);
    const during = expectOk(await admin.api.get(`${translations()}/${french.id}`));
    assert.equal(during.status, 'running');
    const done = await settle(french.id, before.stats.runs + 2, 'completed');
    // The two asked meanwhile are one run after the first (nothing left to translate then).
    assert.equal(done.stats.runs, before.stats.runs + 2);
    assert.equal(done.stats.latestPages, 0);
    assert.equal(provider.calls.length, 1);
    provider.reset();
  });

  it('deletes a translation during its run without bringing it back, and keeps the target space', async () => {
    const doomed = await create({ language: 'sv' });
    provider.reset();
    provider.delayMs = 1_500;
    expectOk(await admin.api.post(`${translations()}/${doomed.id}/run`), 204);
    await waitFor('the run to call the provider', async () => provider.calls.length > 0, 20_000);
    expectOk(await admin.api.delete(`${translations()}/${doomed.id}`), 204);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expectError(await admin.api.get(`${translations()}/${doomed.id}`), 404);
    assert.ok(!expectOk(await admin.api.get(translations())).items.some((t: any) => t.id === doomed.id));
    provider.reset();

    // Deleting a translation that made its target leaves the space.
    const kept = await create({ language: 'da' });
    const done = await run(kept.id);
    expectOk(await admin.api.delete(`${translations()}/${kept.id}`), 204);
    assert.equal(expectOk(await admin.api.get(`/v1/spaces/${done.result.space}`)).language, 'da');
  });
});
