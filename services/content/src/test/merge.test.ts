import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RevisionFileDoc, RevisionPageDoc } from '../db/revisions';
import { applyChanges, type ContentChange } from '../domain/content-changes';
import { classifyHref, classifyLinks, extractHrefs, linkTargets } from '../domain/links';
import { mergeContent, mergeMarkdown, type ContentSnapshot } from '../domain/merge';
import { pagePaths } from '../domain/page-tree';
import { contentHash } from '../domain/revisions';
import { DOWNLOAD_URL_LIFETIME_MS, signedUrl, verifySignedUrl } from '../domain/signed-urls';

/** Pure engines: batch edits, three-way merge (tree and lines), link classification. */

const bodies = new Map<string, string>();
const loader = async (refs: Array<{ bodyHash: string }>) => new Map(refs.map(({ bodyHash }) => [bodyHash, bodies.get(bodyHash) ?? '']));

function apply(content: ContentSnapshot, changes: ContentChange[]): ContentSnapshot & { results: ReturnType<typeof applyChanges>['results'] } {
  const applied = applyChanges(content, changes);
  for (const [hash, markdown] of applied.bodies) bodies.set(hash, markdown);
  return { pages: applied.pages, files: applied.files, results: applied.results };
}

const empty: ContentSnapshot = { pages: [], files: [] };
const titles = (content: ContentSnapshot) => content.pages.map((page) => page.title);
const bodyOf = (content: ContentSnapshot, id: string) => bodies.get(content.pages.find((page) => page.id === id)?.bodyHash ?? '') ?? '';

async function merged(base: ContentSnapshot, ours: ContentSnapshot, theirs: ContentSnapshot): Promise<ContentSnapshot> {
  const outcome = await mergeContent(base, ours, theirs, loader);
  if (!outcome.ok) assert.fail(`unexpected conflicts: ${JSON.stringify(outcome.conflicts)}`);
  for (const [hash, markdown] of outcome.newBodies) bodies.set(hash, markdown);
  return outcome;
}

describe('content changes', () => {
  it('inserts, nests, orders, updates, moves and deletes pages', () => {
    const one = apply(empty, [
      { type: 'insert_page', title: 'Intro', markdown: 'hello' },
      { type: 'insert_page', title: 'Guide' },
      { type: 'insert_page', title: 'First', at: 0 },
    ]);
    assert.deepEqual(titles(one), ['First', 'Intro', 'Guide']);
    const guide = one.pages[2].id;
    const two = apply(one, [
      { type: 'insert_page', title: 'Child', into: guide },
      { type: 'update_page', page: one.pages[0].id, title: 'Renamed', into: guide, at: 0 },
    ]);
    assert.deepEqual(titles(two), ['Intro', 'Guide', 'Renamed', 'Child']);
    assert.deepEqual([...pagePaths(two.pages).values()], ['intro', 'guide', 'guide/first', 'guide/child']);
    const three = apply(two, [{ type: 'delete_page', page: guide }]);
    assert.deepEqual(titles(three), ['Intro']);
  });

  it('gives unique slugs, rejects explicit duplicates and bad references with the change index', () => {
    const one = apply(empty, [
      { type: 'insert_page', title: 'Same' },
      { type: 'insert_page', title: 'Same' },
    ]);
    assert.deepEqual(
      one.pages.map((page) => page.slug),
      ['same', 'same-2'],
    );
    assert.throws(() => applyChanges(one, [{ type: 'insert_page', title: 'x', slug: 'same' }]), /changes\.0\.slug/);
    assert.throws(
      () =>
        applyChanges(one, [
          { type: 'insert_page', title: 'ok' },
          { type: 'update_page', page: 'missing' },
        ]),
      /changes\.1\.page/,
    );
    assert.throws(() => applyChanges(one, [{ type: 'update_page', page: one.pages[0].id, into: one.pages[0].id }]), /changes\.0\.into/);
  });
});

describe('three-way merge', () => {
  it('merges markdown line by line and reports overlapping edits', () => {
    assert.equal(mergeMarkdown('a\nb\nc', 'A\nb\nc', 'a\nb\nC'), 'A\nb\nC');
    assert.equal(mergeMarkdown('a\nb\nc', 'x\nb\nc', 'y\nb\nc'), null);
    assert.equal(mergeMarkdown('a', 'same', 'same'), 'same');
  });

  it('combines page additions, deletions, moves, retitles and body edits from both sides', async () => {
    const base = apply(empty, [
      { type: 'insert_page', title: 'A', markdown: 'line 1\nline 2\nline 3' },
      { type: 'insert_page', title: 'B' },
      { type: 'insert_page', title: 'C' },
      { type: 'insert_page', title: 'D' },
    ]);
    const [a, b, c, d] = base.pages.map((page) => page.id);
    const ours = apply(base, [
      { type: 'update_page', page: a, markdown: 'line 1 (ours)\nline 2\nline 3' },
      { type: 'insert_page', title: 'Ours new', at: 1 },
      { type: 'delete_page', page: d },
    ]);
    const theirs = apply(base, [
      { type: 'update_page', page: a, markdown: 'line 1\nline 2\nline 3 (theirs)' },
      { type: 'update_page', page: b, title: 'B retitled' },
      { type: 'update_page', page: c, into: b },
      { type: 'insert_page', title: 'Theirs new' },
    ]);
    const result = await merged(base, ours, theirs);
    assert.deepEqual(titles(result), ['A', 'Ours new', 'B retitled', 'C', 'Theirs new']);
    assert.equal(result.pages.find((page) => page.id === c)?.parent, b);
    assert.equal(bodyOf(result, a), 'line 1 (ours)\nline 2\nline 3 (theirs)');
  });

  it('is a conflict when both sides change the same thing, naming the page', async () => {
    const base = apply(empty, [{ type: 'insert_page', title: 'Page', markdown: 'one' }]);
    const id = base.pages[0].id;
    const ours = apply(base, [{ type: 'update_page', page: id, markdown: 'ours' }]);
    const theirs = apply(base, [{ type: 'update_page', page: id, markdown: 'theirs', title: 'Other' }]);
    const outcome = await mergeContent(base, ours, theirs, loader);
    assert.equal(outcome.ok, false);
    if (!outcome.ok) assert.equal(outcome.conflicts[0].page?.id, id);
    const deleted = apply(base, [{ type: 'delete_page', page: id }]);
    const editDelete = await mergeContent(base, deleted, theirs, loader);
    assert.equal(editDelete.ok, false);
    // Adding under a page the other side deleted leaves an orphan: a conflict too.
    const child = apply(base, [{ type: 'insert_page', title: 'Child', into: id }]);
    const orphan = await mergeContent(base, deleted, child, loader);
    assert.equal(orphan.ok, false);
  });

  it("is a conflict when one side only changes a page's variables and the other deletes the page", async () => {
    const base = apply(empty, [{ type: 'insert_page', title: 'Page', markdown: 'one', variables: { k: '1' } }]);
    const id = base.pages[0].id;
    const deleted = apply(base, [{ type: 'delete_page', page: id }]);
    for (const variables of [{ k: '2' }, { k: '1', extra: 'x' }, {}] as Array<Record<string, string>>) {
      const edited = apply(base, [{ type: 'update_page', page: id, variables }]);
      for (const [ours, theirs] of [
        [edited, deleted],
        [deleted, edited],
      ]) {
        const outcome = await mergeContent(base, ours, theirs, loader);
        assert.equal(outcome.ok, false, JSON.stringify(variables));
        if (!outcome.ok) assert.deepEqual(outcome.conflicts, [{ page: { id, title: 'Page' }, reason: 'edited on one side and deleted on the other' }]);
      }
    }
    // Variables set again to the same values are no edit: the delete wins.
    const same = apply(base, [{ type: 'update_page', page: id, variables: { k: '1' } }]);
    const result = await merged(base, same, deleted);
    assert.deepEqual(result.pages, []);
  });

  it('only loads bodies changed on both sides', async () => {
    const base = apply(
      empty,
      Array.from({ length: 50 }, (_, i) => ({ type: 'insert_page' as const, title: `P${i}`, markdown: `body ${i}` })),
    );
    const ours = apply(base, [{ type: 'update_page', page: base.pages[3].id, markdown: 'ours' }]);
    const theirs = apply(base, [{ type: 'update_page', page: base.pages[7].id, markdown: 'theirs' }]);
    const asked: string[] = [];
    const outcome = await mergeContent(base, ours, theirs, async (refs) => {
      asked.push(...refs.map((ref) => ref.bodyHash));
      return loader(refs);
    });
    assert.equal(outcome.ok, true);
    assert.deepEqual(asked, []);
    if (outcome.ok) {
      assert.equal(bodyOf(outcome, base.pages[3].id), 'ours');
      assert.equal(bodyOf(outcome, base.pages[7].id), 'theirs');
    }
  });

  it('merges files by id', async () => {
    const file = (id: string, blobHash: string): RevisionFileDoc => ({ id, name: `${id}.png`, contentType: 'image/png', size: 1, blobHash });
    const base: ContentSnapshot = { pages: [], files: [file('f1', 'x')] };
    const result = await merged(base, { pages: [], files: [file('f1', 'x'), file('f2', 'y')] }, { pages: [], files: [file('f1', 'z')] });
    assert.deepEqual(
      result.files.map((f) => `${f.id}:${f.blobHash}`),
      ['f1:z', 'f2:y'],
    );
    const conflict = await mergeContent(base, { pages: [], files: [file('f1', 'q')] }, { pages: [], files: [file('f1', 'z')] }, loader);
    assert.equal(conflict.ok, false);
  });
});

describe('links', () => {
  const page = (id: string, parent: string | null, slug: string): RevisionPageDoc => ({
    id,
    parent,
    title: slug,
    slug,
    emoji: '',
    description: '',
    hidden: false,
    bodyHash: contentHash(id),
    bodyPack: 'pack',
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  const pages = [page('p1', null, 'intro'), page('p2', null, 'guides'), page('p3', 'p2', 'setup')];
  const files: RevisionFileDoc[] = [{ id: 'f1', name: 'logo.png', contentType: 'image/png', size: 1, blobHash: 'h' }];
  const targets = linkTargets(pages, files, 'https://docs.example.com/');

  it('extracts links and images from markdown', () => {
    assert.deepEqual(extractHrefs('[a](x.md) and ![img](.gitbook/assets/logo.png)\n\n[ref]: https://e.com'), ['x.md', '.gitbook/assets/logo.png']);
  });

  it('classifies ok, broken and in-app targets', () => {
    const status = (href: string, from = 'p3') => classifyHref(href, from, targets);
    assert.deepEqual(status('../intro.md'), { status: 'ok', href: '../intro.md', kind: 'page', target: 'p1' });
    assert.equal(status('README.md')?.target, 'p2');
    assert.equal(status('/guides/setup')?.target, 'p3');
    assert.equal(status('/pages/p1#anchor')?.status, 'ok');
    assert.equal(status('/pages/nope')?.status, 'broken');
    assert.equal(status('missing.md')?.status, 'broken');
    assert.equal(status('../.gitbook/assets/logo.png')?.target, 'f1');
    assert.equal(status('/files/f2')?.status, 'broken');
    assert.equal(status('https://docs.example.com/s/x')?.status, 'in-app');
    assert.equal(status('https://elsewhere.org/')?.status, 'ok');
    assert.equal(status('#local'), null);
    const links = classifyLinks(pages, new Map([[contentHash('p1'), '[s](guides/setup.md) [x](gone.md)']]), targets);
    assert.deepEqual(
      links.map((link) => `${link.pageId}:${link.status}`),
      ['p1:ok', 'p1:broken'],
    );
  });
});

describe('signed download addresses', () => {
  const config = { INTERNAL_HMAC_SECRET: 'a-test-secret-a-test-secret-0123456789', PUBLIC_BASE_URL: 'https://docs.example.com' };

  it('verify while valid, refuse when expired or altered', () => {
    const now = Date.UTC(2026, 0, 1);
    const url = new URL(signedUrl(config, '/v1/public/content/files/f1', ['r1'], { revision: 'r1' }, now));
    const query = Object.fromEntries(url.searchParams);
    assert.equal(url.pathname, '/v1/public/content/files/f1');
    verifySignedUrl(config, '/v1/public/content/files/f1', ['r1'], query, now + 1000);
    assert.throws(() => verifySignedUrl(config, '/v1/public/content/files/f1', ['r1'], query, now + DOWNLOAD_URL_LIFETIME_MS + 2000), /expired/);
    assert.throws(() => verifySignedUrl(config, '/v1/public/content/files/f1', ['r2'], query, now), /not valid/);
    assert.throws(() => verifySignedUrl(config, '/v1/public/content/files/f2', ['r1'], query, now), /not valid/);
  });
});
