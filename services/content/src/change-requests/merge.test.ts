import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import type { RevisionFileDoc } from '../revisions';
import { mergeMarkdown, mergeContent, type ContentSnapshot } from './merge';
import { apply, empty, titles, bodyOf, loader, merged } from '../test/snapshots';

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

  it('merges the indexing flags like the other page fields (absent = false); a flag set and a delete conflict', async () => {
    const base = apply(empty, [
      { type: 'insert_page', title: 'Quiet', markdown: 'one', noRobotsIndex: true },
      { type: 'insert_page', title: 'Loud' },
    ]);
    const [quiet, loud] = base.pages.map((page) => page.id);
    const ours = apply(base, [
      { type: 'update_page', page: quiet, noIndex: true },
      { type: 'update_page', page: loud, title: 'Louder' },
    ]);
    const theirs = apply(base, [
      { type: 'update_page', page: quiet, title: 'Quieter', noRobotsIndex: false },
      { type: 'update_page', page: loud, noIndex: true, noRobotsIndex: true },
    ]);
    const result = await merged(base, ours, theirs);
    const flags = (id: string) => {
      const page = result.pages.find((candidate) => candidate.id === id);
      return [page?.title, page?.noIndex, page?.noRobotsIndex];
    };
    // Stored only when true: a flag turned off is absent, not false.
    assert.deepEqual(flags(quiet), ['Quieter', true, undefined]);
    assert.deepEqual(flags(loud), ['Louder', true, true]);
    // Setting a flag to the value it has (false) changes nothing: no conflict with a delete.
    const same = apply(base, [{ type: 'update_page', page: loud, noIndex: false }]);
    const deleted = apply(base, [{ type: 'delete_page', page: loud }]);
    assert.equal((await mergeContent(base, deleted, same, loader)).ok, true);
    const flagged = apply(base, [{ type: 'update_page', page: loud, noIndex: true }]);
    const conflict = await mergeContent(base, deleted, flagged, loader);
    assert.equal(conflict.ok, false);
    if (!conflict.ok) assert.equal(conflict.conflicts[0].page?.id, loud);
  });

  it('merges layout options one by one (absent = the defaults); one option changed differently, or a layout change and a delete, conflict', async () => {
    const base = apply(empty, [
      { type: 'insert_page', ref: 'wide', title: 'Wide', markdown: 'one' },
      { type: 'update_page', page: 'wide', layout: { width: 'wide' } },
      { type: 'insert_page', title: 'Plain' },
    ]);
    const [wide, plain] = base.pages.map((page) => page.id);
    const ours = apply(base, [
      { type: 'update_page', page: wide, layout: { outline: false } },
      { type: 'update_page', page: plain, title: 'Plainer' },
    ]);
    const theirs = apply(base, [
      { type: 'update_page', page: wide, layout: { width: 'default', pagination: false } },
      { type: 'update_page', page: plain, layout: { tableOfContents: false } },
    ]);
    const result = await merged(base, ours, theirs);
    const layoutOf = (id: string) => result.pages.find((page) => page.id === id)?.layout;
    // Held only where they differ from the defaults: the width back to default is absent.
    assert.deepEqual(layoutOf(wide), { outline: false, pagination: false });
    assert.deepEqual(layoutOf(plain), { tableOfContents: false });

    const full = apply(base, [{ type: 'update_page', page: wide, layout: { coverSize: 'full' } }]);
    const background = apply(base, [{ type: 'update_page', page: wide, layout: { coverSize: 'background' } }]);
    const conflict = await mergeContent(base, full, background, loader);
    assert.equal(conflict.ok, false);
    if (!conflict.ok)
      assert.deepEqual(conflict.conflicts, [{ page: { id: wide, title: 'Wide' }, reason: 'layout.coverSize changed differently on both sides' }]);
    // Setting an option to the value it has changes nothing: no conflict with a delete; a real change is one.
    const deleted = apply(base, [{ type: 'delete_page', page: wide }]);
    assert.equal((await mergeContent(base, deleted, apply(base, [{ type: 'update_page', page: wide, layout: { width: 'wide' } }]), loader)).ok, true);
    const deleteConflict = await mergeContent(base, deleted, theirs, loader);
    assert.equal(deleteConflict.ok, false);
    if (!deleteConflict.ok) assert.equal(deleteConflict.conflicts[0].page?.id, wide);
  });

  it('merges a cover changed on one side with other changes on the other; two different covers, or a cover and a delete, conflict', async () => {
    const base = apply(empty, [
      { type: 'insert_files', files: [{ ref: 'a', name: 'a.png', contentType: 'image/png', data: 'AA==' }] },
      { type: 'insert_page', title: 'Page', markdown: 'one' },
    ]);
    const id = base.pages[0].id;
    const file = base.files[0].id;
    const covered = apply(base, [{ type: 'update_page', page: id, cover: { ref: { kind: 'file', file }, yPos: 10 } }]);
    const titled = apply(base, [{ type: 'update_page', page: id, title: 'Titled' }]);
    const result = await merged(base, titled, covered);
    assert.deepEqual(
      result.pages.map((page) => [page.title, page.cover, page.layout]),
      [['Titled', { ref: { kind: 'file', file }, yPos: 10 }, { cover: true }]],
    );
    const elsewhere = apply(base, [{ type: 'update_page', page: id, cover: { ref: { kind: 'url', url: 'https://example.com/a.png' }, yPos: 0 } }]);
    const conflict = await mergeContent(base, covered, elsewhere, loader);
    assert.equal(conflict.ok, false);
    if (!conflict.ok) assert.deepEqual(conflict.conflicts, [{ page: { id, title: 'Page' }, reason: 'cover changed differently on both sides' }]);
    assert.equal((await mergeContent(base, apply(base, [{ type: 'delete_page', page: id }]), covered, loader)).ok, false);
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
