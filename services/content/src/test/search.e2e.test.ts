import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { withTenantSlot } from '@quire/async';
import { createLogger, createRedis, type Database } from '@quire/runtime';
import {
  apiClient,
  assertMatchesOpenApi,
  cleanupTestEnvironment,
  expectError as assertError,
  expectOk as ok,
  startTestStack,
  type TestAccount,
  type TestStack,
} from '@quire/testkit';
import MiniSearch from 'minisearch';
import type { ContentModels } from '../kernel';
import { modelsOf, registerModels } from '../models';
import { settleAverages } from '../search/search-engine';
import { markdownSections } from '../search/search-sections';
import { FORMAT, readIndexData, storeIndexData } from '../search/search-store';

/**
 * Space search through the gateway: result shapes (GitBook SearchPageResult), ranking,
 * typos and prefixes, sections cut at headings, pagination with stable ranks, access,
 * and the index lifecycle (built once per revision, stored, loaded after a restart,
 * replaced by the next revision's; after a change of a searched space, derived from the
 * previous revision's without a search, ranking like a full build, stored as a delta on
 * the last snapshot). The stored index is read from content's database.
 */
describe('content: space search (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount;
  let db: Database;
  let restarted = false;
  let models: ContentModels;
  /** Two spaces of the same content, one's index derived, the other's built (for the restart). */
  let twins: { derived: string; built: string; queries: string[] } | undefined;
  /** The space most tests search: pages about installing and configuring. */
  let docs: { id: string; pages: Record<string, string> };
  /** A space with a noIndex page, searched again after the restart (its stored index is a delta). */
  let quiet: string | undefined;

  const search = (spaceId: string, query: string, extra = '', as: TestAccount = reader) =>
    as.api.get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}${extra}`);
  const found = async (spaceId: string, query: string, extra = '') => ok(await search(spaceId, query, extra));
  const titles = (body: { items: Array<{ title: string }> }) => body.items.map((item) => item.title);

  /** A space whose content is `changes`, written in one change request and merged. */
  const newSpace = async (title: string, changes: unknown[]) => {
    const space = ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201);
    await mergeChanges(space.id, changes);
    return space.id as string;
  };
  const mergeChanges = async (spaceId: string, changes: unknown[]) => {
    const cr = ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Edit' }), 201);
    ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes }));
    ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`));
  };
  const pageIds = async (spaceId: string): Promise<Record<string, string>> => {
    const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
    const content = ok(await admin.api.get(`/v1/spaces/${spaceId}/content`));
    return Object.fromEntries(flat(content.pages).map((page) => [page.title, page.id]));
  };
  const revisionOf = async (spaceId: string): Promise<string> => ok(await admin.api.get(`/v1/spaces/${spaceId}`)).revision;
  const storedParts = (revisionId: string) => models.SearchIndexPart.find({ revisionId }, { data: 0 }).sort({ part: 1 }).lean();
  /** The stored index of `revisionId` once it appears (made in the background after a change), within a bounded wait. */
  const storedIndex = async (revisionId: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const head = await models.SearchIndexPart.findById(revisionId, { data: 0 }).lean();
      if (head) return head;
      if (Date.now() > deadline) assert.fail(`no search index was stored for revision ${revisionId}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Waits (bounded) until the stored index of `revisionId` is deleted: that happens after the new one is stored. */
  const gone = async (revisionId: string, what: string) => {
    const deadline = Date.now() + 60_000;
    while ((await storedParts(revisionId)).length > 0) {
      if (Date.now() > deadline) assert.fail(`${what}: the search index of revision ${revisionId} is still stored`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** What a search answers, without page ids (they differ between spaces of the same content). */
  const comparable = (body: any) => ({
    count: body.count,
    items: body.items.map((item: any) => ({
      title: item.title,
      path: item.path,
      rank: item.rank,
      resultType: item.resultType,
      ancestors: item.ancestors,
      sections: item.sections.map((section: any) => [section.title, section.path, section.body, section.resultType]),
    })),
  });
  const assertSameScores = (actual: any, expected: any, what: string) => {
    const scores = (body: any) => body.items.flatMap((item: any) => [item.score, ...item.sections.map((section: any) => section.score)]);
    const [a, e] = [scores(actual), scores(expected)];
    assert.equal(a.length, e.length, what);
    a.forEach((score: number, i: number) => assert.ok(Math.abs(score - e[i]) <= 1e-9 * Math.max(1, Math.abs(e[i])), `${what}: score ${score} ≠ ${e[i]}`));
  };
  /** Ten plain pages: a space large enough that a one-page edit is a small change. */
  const fillerPages = (words: string[]) =>
    words.map((word, i) => ({ type: 'insert_page', title: `Note ${i}`, markdown: `## About ${word}\n\nA note on the ${word} and the weather.` }));

  const connect = async () => {
    db = await stack.serviceDatabase('content', registerModels);
    models = modelsOf(db);
  };

  beforeAll(async () => {
    // keepData: the last test restarts the stack on the same databases.
    stack = await startTestStack({}, { keepData: true });
    const organization = await stack.organization({ domain: 'search.test', roles: ['read', 'guest'] });
    ({ admin, outsider } = organization);
    orgId = organization.id;
    ({ read: reader, guest } = organization.members);
    await connect();
    const id = await newSpace('Docs', [
      {
        type: 'insert_page',
        title: 'Installation guide',
        description: 'Everything needed before the first run',
        markdown: [
          'Read this before the headings: it **explains** the [overall flow](other.md).',
          '## Requirements',
          'A recent runtime and `redis-server` on the machine.',
          '## Docker setup',
          'Pull the image, then run the container with the ports published.',
        ].join('\n\n'),
      },
      { type: 'insert_page', ref: 'configuration', title: 'Configuration', markdown: 'Settings live in one file.' },
      {
        type: 'insert_page',
        into: 'configuration',
        title: 'Advanced options',
        markdown: [
          '# Tuning',
          'Once the installation is over, tune the cache size and the worker count for the load you expect.',
          '# Tuning',
          'A second tuning pass: measure first.',
        ].join('\n\n'),
      },
      { type: 'insert_page', title: 'Glossary' },
      { type: 'insert_page', title: 'Hideout', hidden: true, markdown: 'The secret lantern is here.' },
    ]);
    docs = { id, pages: await pageIds(id) };
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await db?.close();
    await stack?.stop();
    // The first stack keeps its databases for the restart; without a restart they go here.
    if (stack && !restarted) await cleanupTestEnvironment(stack.env);
  });

  it('answers GitBook SearchPageResult items: sections cut at headings, anchors, paths, ancestors, plain-text excerpts', async () => {
    const body = await found(docs.id, 'docker');
    assert.equal(body.count, 1);
    assert.equal(body.next, undefined);
    const [item] = body.items;
    assertMatchesOpenApi('SearchPageResult', item);
    assert.equal(item.id, docs.pages['Installation guide']);
    assert.equal(item.path, 'installation-guide');
    assert.equal(item.description, 'Everything needed before the first run');
    assert.equal(item.rank, 1);
    assert.equal(item.resultType, 'section');
    assert.deepEqual(item.ancestors, []);
    assert.match(item.urls.app, new RegExp(`/s/${docs.id}/~/revisions/[^/]+/installation-guide$`));
    assert.equal(item.sections.length, 1);
    const [section] = item.sections;
    assert.deepEqual(
      { id: section.id, title: section.title, path: section.path, resultType: section.resultType },
      { id: 'docker-setup', title: 'Docker setup', path: 'installation-guide#docker-setup', resultType: 'section' },
    );
    assert.equal(section.body, 'Pull the image, then run the container with the ports published.');
    assert.equal(section.urls.app, `${item.urls.app}#docker-setup`);
    assert.ok(section.score > 0 && item.score >= section.score);

    // Text before the first heading is the page's own section; markup is stripped.
    const intro = (await found(docs.id, 'explains')).items[0];
    assertMatchesOpenApi('SearchPageResult', intro);
    assert.deepEqual(
      { id: intro.sections[0].id, title: intro.sections[0].title, path: intro.sections[0].path },
      { id: docs.pages['Installation guide'], title: 'Installation guide', path: 'installation-guide' },
    );
    assert.equal(intro.sections[0].body, 'Read this before the headings: it explains the overall flow.');
    assert.equal(intro.sections[0].urls.app, intro.urls.app);

    // Nested page: ancestors from the top; repeated headings get unique anchors.
    const nested = await found(docs.id, 'tuning');
    assert.deepEqual(titles(nested), ['Advanced options']);
    const advanced = nested.items[0];
    assertMatchesOpenApi('SearchPageResult', advanced);
    assert.deepEqual(advanced.ancestors, [{ title: 'Configuration' }]);
    assert.equal(advanced.path, 'configuration/advanced-options');
    assert.deepEqual(advanced.sections.map((s: any) => s.path).sort(), ['configuration/advanced-options#tuning', 'configuration/advanced-options#tuning-1']);

    // Hidden pages are searchable (hidden only hides from navigation); an empty page is found by its title.
    assert.deepEqual(titles(await found(docs.id, 'lantern')), ['Hideout']);
    const glossary = (await found(docs.id, 'glossary')).items[0];
    assertMatchesOpenApi('SearchPageResult', glossary);
    assert.deepEqual([glossary.title, glossary.resultType, glossary.sections], ['Glossary', 'page', []]);
  });

  it('ranks a title match above a body-only match, and says which one matched', async () => {
    const body = await found(docs.id, 'installation');
    assert.deepEqual(titles(body), ['Installation guide', 'Advanced options']);
    const [byTitle, byBody] = body.items;
    assert.deepEqual([byTitle.rank, byTitle.resultType, byBody.rank, byBody.resultType], [1, 'page', 2, 'section']);
    assert.ok(byTitle.score > byBody.score);
    // The page found by its title shows an arbitrary (its first) section, marked as such.
    assert.equal(byTitle.sections[0].resultType, 'page');
    assert.equal(byBody.sections[0].id, 'tuning');
    assert.match(byBody.sections[0].body, /installation is over/);
  });

  it('tolerates typos and completes the last word as a prefix', async () => {
    assert.equal(titles(await found(docs.id, 'instalation'))[0], 'Installation guide');
    assert.equal(titles(await found(docs.id, 'confguration'))[0], 'Configuration');
    // Two typos in a long word are tolerated, three are not (whatever the word's length: a bounded lookup cost).
    assert.equal(titles(await found(docs.id, 'konfigurasion'))[0], 'Configuration');
    assert.equal((await found(docs.id, 'konfigurasjon')).count, 0);
    assert.equal(titles(await found(docs.id, 'instal'))[0], 'Installation guide');
    assert.deepEqual(titles(await found(docs.id, 'cache wor')), ['Advanced options']);
    assert.equal((await found(docs.id, 'xylophone')).count, 0);
    // Only the last word is a prefix: "inst" in first position must match exactly.
    assert.equal((await found(docs.id, 'inst cache')).items[0].title, 'Advanced options');
    assert.equal((await found(docs.id, 'inst cache')).count, 1);
    // Long queries: the first 16 distinct terms count, the rest is ignored.
    const filler = Array.from({ length: 16 }, (_, i) => `qq${i}zz`).join(' ');
    assert.equal((await found(docs.id, `docker ${filler}`)).count, 1);
    assert.equal((await found(docs.id, `${filler} docker`)).count, 0);
  });

  it('pages through the ranked list with opaque tokens; ranks continue and the order is the single-page order', async () => {
    const spaceId = await newSpace(
      'Zebras',
      Array.from({ length: 25 }, (_, i) => ({
        type: 'insert_page',
        title: `Note ${i}`,
        // Different term frequencies and lengths give different scores.
        markdown: `${'zebra '.repeat(1 + (i % 7))}${'grass '.repeat(i)}`,
      })),
    );
    const all = await found(spaceId, 'zebra', '&limit=100');
    assert.equal(all.count, 25);
    assert.equal(all.next, undefined);
    const scores = all.items.map((item: any) => item.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
      'best first',
    );

    const seen: any[] = [];
    let page: string | undefined;
    let requests = 0;
    do {
      const body = await found(spaceId, 'zebra', `&limit=10${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      assert.equal(body.count, 25);
      for (const item of body.items) assertMatchesOpenApi('SearchPageResult', item);
      seen.push(...body.items);
      page = body.next?.page;
      requests++;
      // The space moving on does not shift a search being paged through.
      if (requests === 1) await mergeChanges(spaceId, [{ type: 'insert_page', title: 'Zebra zebra', markdown: 'zebra zebra zebra' }]);
    } while (page);
    assert.equal(requests, 3);
    assert.deepEqual(
      seen.map((item) => [item.id, item.rank]),
      all.items.map((item: any, index: number) => [item.id, index + 1]),
    );
    assert.equal((await found(spaceId, 'zebra')).items[0].title, 'Zebra zebra', 'a new search sees the new revision');

    assertError(await search(spaceId, 'zebra', '&page=not-a-cursor'), 400, 'page');
    assertError(await search(spaceId, 'zebra', '&limit=0'), 400, 'limit');
    // A cursor of another space's search is not one of this list.
    const foreign = (await found(spaceId, 'zebra', '&limit=1')).next.page;
    assertError(await search(docs.id, 'zebra', `&page=${encodeURIComponent(foreign)}`), 400, 'page');
  });

  it('builds the index once per revision: stored once, not rebuilt by later or concurrent searches', async () => {
    const spaceId = await newSpace('Once', [{ type: 'insert_page', title: 'Alpha', markdown: '## Beta\n\nGamma delta.' }]);
    const revisionId = await revisionOf(spaceId);
    assert.equal((await storedParts(revisionId)).length, 0, 'nothing is built before the first search');
    const answers = await Promise.all(Array.from({ length: 6 }, () => search(spaceId, 'gamma')));
    for (const answer of answers) assert.deepEqual(ok(answer), answers[0].body);
    const stored = await storedParts(revisionId);
    assert.equal(stored.length, 1);
    assert.deepEqual([stored[0]._id, stored[0].part, stored[0].parts, stored[0].spaceId], [revisionId, 0, 1, spaceId]);
    for (const query of ['alpha', 'beta', 'delta', 'gamma']) assert.equal((await found(spaceId, query)).count, 1);
    const again = await storedParts(revisionId);
    assert.equal(again.length, 1);
    assert.equal(again[0].createdAt.getTime(), stored[0].createdAt.getTime(), 'the stored index was not rebuilt');
  });

  it('searches the new revision after a merge: new text found, removed text gone, the old index removed', async () => {
    const spaceId = await newSpace('Moves', [{ type: 'insert_page', title: 'Deploy', markdown: '## Runtime\n\nShips with docker compose.' }]);
    const first = await revisionOf(spaceId);
    assert.equal((await found(spaceId, 'docker')).count, 1);
    assert.equal((await found(spaceId, 'kubernetes')).count, 0);
    const pageId = (await pageIds(spaceId)).Deploy;
    await mergeChanges(spaceId, [{ type: 'update_page', page: pageId, markdown: '## Runtime\n\nShips as a kubernetes chart.' }]);
    const second = await revisionOf(spaceId);
    assert.notEqual(second, first);
    const now = await found(spaceId, 'kubernetes');
    assert.equal(now.count, 1);
    assert.equal(now.items[0].sections[0].body, 'Ships as a kubernetes chart.');
    assert.match(now.items[0].urls.app, new RegExp(`/revisions/${second}/deploy$`));
    assert.equal((await found(spaceId, 'docker')).count, 0);
    assert.equal((await storedParts(second)).length, 1);
    assert.equal((await storedParts(first)).length, 0, 'the replaced revision’s stored index is deleted');
  });

  it('warms the index of a searched space after a merge: derived from the previous one and stored as a delta, with no search', async () => {
    const spaceId = await newSpace('Handbook', [
      { type: 'insert_page', ref: 'guides', title: 'Guides', slug: 'guides', markdown: 'Start here.' },
      { type: 'insert_page', into: 'guides', title: 'Setup', markdown: '## Install\n\nInstall the walrus agent.' },
      { type: 'insert_page', into: 'guides', title: 'Upgrade', markdown: 'Upgrading keeps the narwhal settings.' },
      { type: 'insert_page', title: 'Reference', markdown: 'The ocelot API.' },
      ...fillerPages(['heron', 'otter', 'badger', 'beaver', 'marten', 'stoat']),
    ]);
    const unsearched = await newSpace('Nobody searches', fillerPages(['puffin', 'gannet', 'shag', 'tern', 'skua', 'auk', 'eider', 'scoter', 'smew', 'teal']));
    const first = await revisionOf(spaceId);
    assert.equal((await found(spaceId, 'walrus')).count, 1);
    assert.equal((await storedIndex(first)).base, null, 'the first index is a snapshot');
    const ids = await pageIds(spaceId);

    // One page edited: the new revision's index appears without any search of it.
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids.Reference, markdown: 'The lynx API.' }]);
    const second = await revisionOf(spaceId);
    const warmed = await storedIndex(second);
    assert.equal(warmed.base, first, 'stored as a delta on the first snapshot');
    assert.equal((await storedParts(first)).length, 1, 'the snapshot a delta builds on is kept');
    const lynx = await found(spaceId, 'lynx');
    assert.deepEqual(titles(lynx), ['Reference']);
    assert.equal(lynx.items[0].sections[0].body, 'The lynx API.');
    assert.match(lynx.items[0].urls.app, new RegExp(`/revisions/${second}/reference$`));
    assert.equal((await found(spaceId, 'ocelot')).count, 0, 'removed text is gone');
    const walrus = (await found(spaceId, 'walrus')).items[0];
    assert.deepEqual(
      [walrus.title, walrus.path, walrus.ancestors, walrus.sections[0].path],
      ['Setup', 'guides/setup', [{ title: 'Guides' }], 'guides/setup#install'],
    );
    assert.equal((await found(spaceId, 'badger')).items[0].path, 'note-2', 'unchanged pages are found');
    assert.equal((await storedIndex(second)).createdAt.getTime(), warmed.createdAt.getTime(), 'searching did not make it again');

    // A space nobody searches: its new revision is not indexed. (Events are handled in
    // order: once the merge after it is warmed, this one was handled.)
    await mergeChanges(unsearched, [{ type: 'update_page', page: (await pageIds(unsearched))['Note 0'], markdown: 'Puffins nest here.' }]);

    // The parent page renamed (title and slug): its children's paths and ancestors follow.
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids.Guides, title: 'Manual', slug: 'manual' }]);
    const third = await revisionOf(spaceId);
    assert.equal((await storedIndex(third)).base, first);
    await gone(second, 'the replaced delta is deleted');
    assert.equal((await storedParts(first)).length, 1);
    const renamed = (await found(spaceId, 'walrus')).items[0];
    assertMatchesOpenApi('SearchPageResult', renamed);
    assert.deepEqual([renamed.path, renamed.ancestors, renamed.sections[0].path], ['manual/setup', [{ title: 'Manual' }], 'manual/setup#install']);
    assert.match(renamed.urls.app, new RegExp(`/revisions/${third}/manual/setup$`));
    const narwhal = (await found(spaceId, 'narwhal')).items[0];
    assert.deepEqual([narwhal.title, narwhal.path, narwhal.ancestors], ['Upgrade', 'manual/upgrade', [{ title: 'Manual' }]]);
    assert.deepEqual(titles(await found(spaceId, 'manual')), ['Manual']);
    assert.equal((await found(spaceId, 'guides')).count, 0, 'the old title is gone');
    assert.equal((await found(spaceId, 'lynx')).count, 1);

    assert.equal((await models.SearchIndexPart.find({ spaceId: unsearched }, { data: 0 }).lean()).length, 0, 'nothing indexed for an unsearched space');
  });

  it('an index derived from the previous revision’s ranks exactly like one built at once (and loads so after a restart)', async () => {
    const pagesOf = (variant: 'before' | 'after') => [
      {
        type: 'insert_page',
        ref: 'group',
        title: 'Storage',
        description: 'Where data lives',
        markdown: '## Buckets\n\nBuckets hold objects and snapshots.\n\n## Snapshots\n\nA snapshot of a bucket is cheap.',
      },
      { type: 'insert_page', into: 'group', title: 'Snapshots and backups', markdown: 'Backups copy a snapshot elsewhere. Restore a snapshot from a backup.' },
      {
        type: 'insert_page',
        into: 'group',
        title: variant === 'before' ? 'Retention' : 'Retention rules',
        slug: 'retention',
        markdown: 'Old snapshots expire after thirty days.',
      },
      {
        type: 'insert_page',
        title: 'Buckets',
        markdown:
          variant === 'before'
            ? 'A bucket is a container of objects.'
            : '## Naming\n\nA bucket name is unique.\n\n## Snapshots\n\nEach bucket can take snapshots of its objects.',
      },
      ...(variant === 'before' ? [{ type: 'insert_page', title: 'Obsolete', markdown: 'Snapshot tapes, long gone.' }] : []),
      { type: 'insert_page', title: 'Same', markdown: 'Identical text about snapshot buckets.' },
      { type: 'insert_page', title: 'Same twin', markdown: 'Identical text about snapshot buckets.' },
      ...fillerPages(['bucket', 'snapshot', 'object', 'backup', 'restore', 'archive', 'container', 'snap']),
      ...(variant === 'after' ? [{ type: 'insert_page', title: 'Snapshot schedules', markdown: 'Schedules take snapshots nightly.' }] : []),
    ];
    const derivedSpace = await newSpace('Derived', pagesOf('before'));
    assert.equal((await found(derivedSpace, 'snapshot')).count > 0, true);
    const before = await revisionOf(derivedSpace);
    const ids = await pageIds(derivedSpace);
    // 4 of 15 pages: a body changed, a title changed, a page deleted, a page added.
    await mergeChanges(derivedSpace, [
      {
        type: 'update_page',
        page: ids.Buckets,
        markdown: '## Naming\n\nA bucket name is unique.\n\n## Snapshots\n\nEach bucket can take snapshots of its objects.',
      },
      { type: 'update_page', page: ids.Retention, title: 'Retention rules' },
      { type: 'delete_page', page: ids.Obsolete },
      { type: 'insert_page', title: 'Snapshot schedules', markdown: 'Schedules take snapshots nightly.' },
    ]);
    const after = await revisionOf(derivedSpace);
    assert.equal((await storedIndex(after)).base, before, 'the index was derived (a delta on the previous snapshot)');
    const builtSpace = await newSpace('Built', pagesOf('after'));

    const queries = ['snapshot', 'snapshots bucket', 'buckets', 'snapshto', 'snap', 'identical text', 'retention rules', 'note weather', 'objects'];
    for (const query of queries) {
      const derived = await found(derivedSpace, query, '&limit=100');
      const built = await found(builtSpace, query, '&limit=100');
      assert.deepEqual(comparable(derived), comparable(built), query);
      assertSameScores(derived, built, query);
    }
    assert.equal((await found(derivedSpace, 'tapes')).count, 0);
    twins = { derived: derivedSpace, built: builtSpace, queries };
  });

  it('leaves noIndex pages out of the index: never found, not weighing in the scores; flipping the flag enters or removes the page incrementally', async () => {
    const pagesOf = (secretNoIndex: boolean) => [
      { type: 'insert_page', title: 'Public notes', markdown: '## Aardvark\n\nThe aardvark digs at night.' },
      {
        type: 'insert_page',
        ref: 'secret',
        title: 'Pangolin secrets',
        description: 'Scales and aardvark rumours',
        markdown: 'The aardvark and the pangolin share a burrow.',
        noIndex: secretNoIndex,
      },
      { type: 'insert_page', into: 'secret', title: 'Burrow map', markdown: 'Where the tunnels go.' },
      ...fillerPages(['vole', 'shrew', 'mole', 'dormouse', 'hedgehog', 'weasel', 'ferret']),
    ];
    const queries = ['aardvark', 'pangolin', 'tunnels', 'burrow', 'scales', 'night weather'];
    /** Every answer of `spaceId` equals (scores too) that of a space built at once from `pagesOf(secretNoIndex)`. */
    const ranksLikeBuilt = async (spaceId: string, secretNoIndex: boolean, what: string) => {
      const built = await newSpace(`Built ${what}`, pagesOf(secretNoIndex));
      for (const query of queries) {
        const a = await found(spaceId, query, '&limit=100');
        const b = await found(built, query, '&limit=100');
        assert.deepEqual(comparable(a), comparable(b), `${what}: ${query}`);
        assertSameScores(a, b, `${what}: ${query}`);
      }
    };

    const spaceId = await newSpace('Quiet', pagesOf(true));
    const ids = await pageIds(spaceId);
    const page = ok(await reader.api.get(`/v1/spaces/${spaceId}/content/page/${ids['Pangolin secrets']}`));
    assert.deepEqual([page.noIndex, page.noRobotsIndex], [true, false]);
    // Neither its body, its title nor its description is found; its child is, under it.
    assert.deepEqual(titles(await found(spaceId, 'aardvark')), ['Public notes']);
    assert.equal((await found(spaceId, 'pangolin')).count, 0);
    assert.equal((await found(spaceId, 'scales')).count, 0);
    const child = (await found(spaceId, 'tunnels')).items[0];
    assert.deepEqual([child.title, child.path, child.ancestors], ['Burrow map', 'pangolin-secrets/burrow-map', [{ title: 'Pangolin secrets' }]]);
    const first = await revisionOf(spaceId);
    assert.equal((await storedIndex(first)).base, null, 'the first index is a snapshot');

    // Turned off: the page enters the index of the next revision, derived from the previous one.
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids['Pangolin secrets'], noIndex: false }]);
    const second = await revisionOf(spaceId);
    assert.equal((await storedIndex(second)).base, first, 'derived: a delta on the first snapshot');
    assert.deepEqual(titles(await found(spaceId, 'pangolin')), ['Pangolin secrets']);
    assert.deepEqual(titles(await found(spaceId, 'aardvark')).sort(), ['Pangolin secrets', 'Public notes']);
    await ranksLikeBuilt(spaceId, false, 'flag off');

    // Turned on again: it leaves the index (title, description and sections).
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids['Pangolin secrets'], noIndex: true }]);
    const third = await revisionOf(spaceId);
    assert.equal((await storedIndex(third)).base, first, 'derived again');
    assert.deepEqual(titles(await found(spaceId, 'aardvark')), ['Public notes']);
    assert.equal((await found(spaceId, 'pangolin')).count, 0);
    await ranksLikeBuilt(spaceId, true, 'flag on');

    // Other edits of the left-out page keep it out; noRobotsIndex changes nothing in search.
    await mergeChanges(spaceId, [
      { type: 'update_page', page: ids['Pangolin secrets'], title: 'Pangolin lore', markdown: 'Pangolin lore.', noRobotsIndex: true },
    ]);
    assert.equal((await found(spaceId, 'pangolin')).count, 0);
    assert.equal((await found(spaceId, 'lore')).count, 0);
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids['Public notes'], noRobotsIndex: true }]);
    assert.deepEqual(titles(await found(spaceId, 'aardvark')), ['Public notes']);
    quiet = spaceId;
  });

  it('stores deltas on the last snapshot until too many pages changed since it, then a new snapshot', async () => {
    const words = ['kestrel', 'merlin', 'hobby', 'harrier', 'osprey', 'buzzard', 'goshawk', 'kite', 'eagle', 'falcon'];
    const spaceId = await newSpace('Raptors', fillerPages(words));
    const ids = await pageIds(spaceId);
    assert.equal((await found(spaceId, 'kestrel')).count, 1);
    const snapshot = await revisionOf(spaceId);
    const revisions = [snapshot];
    // Four merges editing a different page each: 1, 2, 3 pages of 10 differ from the snapshot, then 4 (> 30%).
    for (let i = 0; i < 4; i++) {
      await mergeChanges(spaceId, [{ type: 'update_page', page: ids[`Note ${i}`], markdown: `Now about the tern, take ${i}.` }]);
      revisions.push(await revisionOf(spaceId));
      const stored = await storedIndex(revisions[i + 1]);
      assert.equal(stored.base, i < 3 ? snapshot : null, `after edit ${i + 1}`);
      if (i > 0) await gone(revisions[i], 'the previous delta is deleted');
      // (A revision's index is stored after its parent's is done: the parent's deletions are over.)
      if (i < 3) assert.equal((await storedParts(snapshot)).length, 1, 'the snapshot is kept while a delta builds on it');
    }
    await gone(snapshot, 'the old snapshot is deleted once no delta builds on it');
    assert.equal((await found(spaceId, 'tern')).count, 4);
    for (const word of words.slice(0, 4)) assert.equal((await found(spaceId, word)).count, 0, `${word} was edited away`);
    assert.deepEqual(titles(await found(spaceId, 'falcon')), ['Note 9']);
  });

  it('finds generated (computed) pages by their title only', async () => {
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Zoo', version: '1.0.0' },
      paths: { '/okapis': { get: { tags: ['Enclosures'], summary: 'Enumerate okapis', responses: { '200': { description: 'The okapis' } } } } },
    };
    const spaceId = await newSpace('Zoo', [
      { type: 'insert_files', files: [{ name: 'zoo.json', contentType: 'application/json', data: Buffer.from(JSON.stringify(spec)).toString('base64') }] },
    ]);
    ok(
      await admin.api.post(`/v1/spaces/${spaceId}/content/template`, {
        id: 'api-reference',
        params: { contentRefs: { spec: { kind: 'openapi', spec: 'zoo' } } },
      }),
      201,
    );
    const generated = ok(await admin.api.get(`/v1/spaces/${spaceId}/content/page/${(await pageIds(spaceId)).Enclosures}`));
    assert.match(generated.markdown, /okapis/, 'the generated body holds the word');
    assert.equal((await found(spaceId, 'okapis')).count, 0);
    const byTitle = await found(spaceId, 'enclosures');
    assert.deepEqual(titles(byTitle), ['Enclosures']);
    assert.deepEqual([byTitle.items[0].resultType, byTitle.items[0].sections, byTitle.items[0].ancestors], ['page', [], [{ title: 'API Reference' }]]);
  });

  it("bounds one organization's index builds at once: a search needing one more answers 429 with Retry-After, another organization's does not wait", async () => {
    // An organization of its own: no build of the suite's other spaces holds one of its slots meanwhile.
    const own = await stack.organization({ domain: 'search-cold.test', roles: [] });
    const cold = ok(await own.admin.api.post(`/v1/orgs/${own.id}/spaces`, { title: 'Cold' }), 201).id as string;
    const coldCr = ok(await own.admin.api.post(`/v1/spaces/${cold}/change-requests`, { subject: 'Pages' }), 201);
    ok(await own.admin.api.post(`/v1/spaces/${cold}/change-requests/${coldCr.id}/content`, { changes: fillerPages(['quartz', 'basalt']) }));
    ok(await own.admin.api.post(`/v1/spaces/${cold}/change-requests/${coldCr.id}/merge`));
    const other = await stack.organization({ domain: 'search-other.test', roles: [] });
    const otherSpace = ok(await other.admin.api.post(`/v1/orgs/${other.id}/spaces`, { title: 'Elsewhere' }), 201).id;
    const cr = ok(await other.admin.api.post(`/v1/spaces/${otherSpace}/change-requests`, { subject: 'Page' }), 201);
    ok(await other.admin.api.post(`/v1/spaces/${otherSpace}/change-requests/${cr.id}/content`, { changes: [{ type: 'insert_page', title: 'Quartz' }] }));
    ok(await other.admin.api.post(`/v1/spaces/${otherSpace}/change-requests/${cr.id}/merge`));
    // Both build slots of the organization (SEARCH_INDEX_BUILDS_PER_ORGANIZATION: 2) taken, as two builds under way would take them.
    const redis = createRedis({ REDIS_URL: stack.env.redisUrl, REDIS_PREFIX: stack.env.redisPrefix }, createLogger('search-test', 'silent'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const taken = () => new Error('taken');
    // Each holder says when it holds its slot: the search must not start before (it would take a slot first).
    const holding: Promise<void>[] = [];
    const holders = [1, 2].map(() => {
      let holds!: () => void;
      holding.push(new Promise<void>((resolve) => (holds = resolve)));
      return withTenantSlot(redis, `content:search-index-builds:${own.id}`, 2, () => (holds(), held), taken);
    });
    try {
      await Promise.race([Promise.all(holding), Promise.all(holders)]);
      const refused = await search(cold, 'quartz', '', own.admin);
      assertError(refused, 429);
      assert.match(refused.body.error.message, /being built: retry in \d+ s/);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
      assert.equal(ok(await search(otherSpace, 'quartz', '', other.admin)).count, 1, "another organization's first search");
    } finally {
      release();
      await Promise.all(holders);
      redis.disconnect();
    }
    assert.equal(ok(await search(cold, 'quartz', '', own.admin)).count, 1, 'searched once a build slot is free');
  });

  it('validates the query (400 naming the field)', async () => {
    const refused = [
      await reader.api.get(`/v1/spaces/${docs.id}/search`),
      await search(docs.id, ''),
      await search(docs.id, '   '),
      await search(docs.id, 'a'.repeat(513)),
      // The limit is on the query as sent: blanks around it count.
      await search(docs.id, `  ${'a'.repeat(511)}`),
      await reader.api.get(`/v1/spaces/${docs.id}/search?query=a&query=b`),
    ];
    for (const response of refused) {
      assertError(response, 400);
      // Every message starts "Invalid query:", so the field must be named after it (the testkit's check would pass on that word).
      assert.match(response.body.error.message, /^Invalid query: (.*; )?query:/, response.body.error.message);
    }
    assert.equal(ok(await search(docs.id, `${'a'.repeat(512)}`)).count, 0, '512 characters are accepted');
  });

  it('needs read access: 404 for unknown and deleted spaces, outsiders and guests without a grant; readers and invited guests search', async () => {
    assertError(await search('nope', 'docker'), 404);
    assertError(await search(docs.id, 'docker', '', outsider), 404);
    assertError(await search(docs.id, 'docker', '', guest), 404);
    assert.equal((await found(docs.id, 'docker')).count, 1, 'a reader searches');
    const spaceId = await newSpace('Shared', [{ type: 'insert_page', title: 'Welcome', markdown: 'Hello guests.' }]);
    assertError(await search(spaceId, 'hello', '', guest), 404);
    assert.equal((await admin.api.post(`/v1/spaces/${spaceId}/permissions`, { role: 'read', users: [guest.userId] })).status, 204);
    assert.equal(ok(await search(spaceId, 'hello', '', guest)).count, 1);
    assert.equal((await admin.api.delete(`/v1/spaces/${spaceId}`)).status, 204);
    assertError(await search(spaceId, 'hello', '', admin), 404);
  });

  it('works through the official GitBook client', async () => {
    const client: any = new GitBookAPI({ authToken: reader.token, endpoint: stack.baseUrl });
    const response = await client.spaces.searchSpaceContent(docs.id, { query: 'docker setup', limit: 5 });
    assert.equal(response.data.items[0].id, docs.pages['Installation guide']);
    assert.equal(response.data.items[0].sections[0].id, 'docker-setup');
    for (const item of response.data.items) assertMatchesOpenApi('SearchPageResult', item);
  });

  it('deletes outdated stored indexes it replaces, with the outdated snapshot a delta builds on', async () => {
    const spaceId = await newSpace('Outdated', fillerPages(['alder', 'aspen', 'birch', 'cedar', 'elm', 'fir', 'hazel', 'larch', 'maple', 'oak']));
    const ids = await pageIds(spaceId);
    assert.equal((await found(spaceId, 'alder')).count, 1);
    const first = await revisionOf(spaceId);
    await storedIndex(first);
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids['Note 0'], markdown: 'Now about the rowan.' }]);
    const second = await revisionOf(spaceId);
    assert.equal((await storedIndex(second)).base, first);
    // As if both were stored by an earlier release, in a layout this one no longer reads.
    for (const revisionId of [first, second]) await models.SearchIndexPart.updateOne({ _id: revisionId }, { $set: { format: FORMAT - 1 } });
    await mergeChanges(spaceId, [{ type: 'update_page', page: ids['Note 1'], markdown: 'Now about the yew.' }]);
    const third = await revisionOf(spaceId);
    assert.equal((await storedIndex(third)).base, null, 'no delta on an outdated snapshot');
    await gone(second, 'the outdated parent is deleted');
    await gone(first, 'the outdated snapshot it was a delta on is deleted');
    assert.deepEqual(titles(await found(spaceId, 'yew')), ['Note 1']);
    assert.deepEqual(titles(await found(spaceId, 'rowan')), ['Note 0']);
  });

  it('gives repeated headings unique anchors at a constant cost each (one heading repeated all over a page cannot hold the process)', () => {
    const anchors = (markdown: string) => markdownSections(markdown).map((section) => section.anchor);
    assert.deepEqual(anchors('# A\n\nx\n\n# A-1\n\ny\n\n# A\n\nz\n\n# A\n\nw\n\n# A-1\n\nv\n\n# A-2\n\nu'), ['a', 'a-1', 'a-2', 'a-3', 'a-1-1', 'a-2-1']);
    // Counted, not timed: the anchor lookups for n repeats must grow like n, not like n².
    const repeats = 2000;
    const has = Set.prototype.has;
    let lookups = 0;
    Set.prototype.has = function (this: Set<unknown>, value: unknown) {
      lookups++;
      return has.call(this, value);
    };
    let sections: ReturnType<typeof markdownSections>;
    try {
      sections = markdownSections('## Step\n\nDo it.\n\n'.repeat(repeats));
    } finally {
      Set.prototype.has = has;
    }
    assert.deepEqual([sections.length, sections[1].anchor, sections[repeats - 1].anchor], [repeats, 'step-1', `step-${repeats - 1}`]);
    assert.ok(lookups < 10 * repeats, `${lookups} lookups for ${repeats} headings`);
  });

  it('settles MiniSearch’s average field lengths exactly, and changes nothing when its internals are not where expected', () => {
    const options = { fields: ['text'] };
    const docs = [
      { id: 'a', text: 'one two three' },
      { id: 'b', text: 'four five six seven eight' },
      { id: 'c', text: 'nine ten' },
    ];
    const averages = (search: MiniSearch) => search.toJSON().averageFieldLength;
    const changed = new MiniSearch(options);
    changed.addAll(docs);
    changed.remove(docs[1]);
    const built = new MiniSearch(options);
    built.addAll([docs[0], docs[2]]);
    assert.equal(settleAverages(changed), true);
    assert.equal(settleAverages(built), true);
    assert.deepEqual(averages(changed), [2.5]);
    assert.deepEqual(averages(changed), averages(built));

    // Another MiniSearch version (fields renamed or gone): refused, nothing written.
    for (const [field, renamed] of [
      ['_fieldLength', '_fieldLengths'],
      ['_avgFieldLength', '_averageFieldLength'],
      ['_documentCount', '_docCount'],
    ]) {
      const other = new MiniSearch(options);
      other.addAll(docs);
      other.remove(docs[1]);
      const internals = other as unknown as Record<string, unknown>;
      internals[renamed] = internals[field];
      delete internals[field];
      const before = { ...internals };
      assert.equal(settleAverages(other), false, field);
      assert.deepEqual(Object.keys(internals), Object.keys(before), field);
      for (const key of Object.keys(before)) assert.equal(internals[key], before[key], `${field}: ${key} untouched`);
    }
  });

  it('stores a large index in parts and reads it back whole; a replaced one leaves no parts behind; an incomplete one reads as absent', async () => {
    const revisionId = `parts-${randomBytes(4).toString('hex')}`;
    const data = randomBytes(200_000);
    await storeIndexData(models, { revisionId, spaceId: 'parts-test' }, data, 64 * 1024);
    const parts = await storedParts(revisionId);
    assert.deepEqual(
      parts.map((part) => [part._id, part.part, part.parts, part.size]),
      [0, 1, 2, 3].map((n) => [n === 0 ? revisionId : `${revisionId}:${n}`, n, 4, data.length]),
    );
    assert.deepEqual(await readIndexData(models, revisionId), data);
    // Replaced by a smaller one (an outdated or broken index made again): the parts it no longer has go.
    const smaller = randomBytes(100_000);
    await storeIndexData(models, { revisionId, spaceId: 'parts-test' }, smaller, 64 * 1024);
    assert.deepEqual(
      (await storedParts(revisionId)).map((part) => [part._id, part.parts]),
      [
        [revisionId, 2],
        [`${revisionId}:1`, 2],
      ],
    );
    assert.deepEqual(await readIndexData(models, revisionId), smaller);
    await models.SearchIndexPart.deleteOne({ _id: `${revisionId}:1` });
    assert.equal(await readIndexData(models, revisionId), null);
  });

  it('loads the stored index after a restart instead of building it again', async () => {
    const revisionId = await revisionOf(docs.id);
    const earlier = await found(docs.id, 'installation');
    const stored = await storedParts(revisionId);
    assert.equal(stored.length, 1);
    await db.close();
    await stack.stop();
    restarted = true;
    stack = await startTestStack({}, { reuse: stack });
    await connect();
    // Same databases: the accounts and their tokens live on, behind the new gateway address.
    reader = { ...reader, api: apiClient(stack.baseUrl, reader.token) };
    admin = { ...admin, api: apiClient(stack.baseUrl, admin.token) };
    const later = await found(docs.id, 'installation');
    assert.deepEqual(
      later.items.map((item: any) => [item.id, item.rank, item.score]),
      earlier.items.map((item: any) => [item.id, item.rank, item.score]),
    );
    const reloaded = await storedParts(revisionId);
    assert.equal(reloaded.length, 1);
    assert.equal(reloaded[0].createdAt.getTime(), stored[0].createdAt.getTime(), 'loaded, not rebuilt');

    // A delta loads onto its snapshot and ranks like the index built at once.
    assert.ok(twins, 'the derived and built spaces exist');
    const delta = await storedParts(await revisionOf(twins.derived));
    assert.notEqual(delta[0].base, null);
    for (const query of twins.queries) {
      const derived = await found(twins.derived, query, '&limit=100');
      const built = await found(twins.built, query, '&limit=100');
      assert.deepEqual(comparable(derived), comparable(built), query);
      assertSameScores(derived, built, query);
    }
    const deltaAgain = await storedParts(delta[0].revisionId);
    assert.equal(deltaAgain[0].createdAt.getTime(), delta[0].createdAt.getTime(), 'the delta was loaded, not made again');

    // The stored index of a space with a noIndex page loads with the page still left out.
    assert.ok(quiet, 'the space with a noIndex page exists');
    const quietParts = await storedParts(await revisionOf(quiet));
    assert.notEqual(quietParts[0].base, null);
    assert.deepEqual(titles(await found(quiet, 'aardvark')), ['Public notes']);
    assert.equal((await found(quiet, 'pangolin')).count, 0);
    assert.deepEqual(titles(await found(quiet, 'tunnels')), ['Burrow map']);
    const quietAgain = await storedParts(quietParts[0].revisionId);
    assert.equal(quietAgain[0].createdAt.getTime(), quietParts[0].createdAt.getTime(), 'loaded, not made again');
  });
});
