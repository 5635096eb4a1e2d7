import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { applyChanges } from './content-changes';
import { pagePaths } from './page-tree';
import { apply, empty, titles } from '../test/snapshots';

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
