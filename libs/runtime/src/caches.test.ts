import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { createCaches, declareCache } from './caches';
import { remembered } from './lru';

const MB = 1024 * 1024;
const declared = { pages: declareCache<string>(30), indexes: declareCache<{ id: string }>(10) };

describe('declared caches', () => {
  it('split the budget in proportion to their declared sizes: the declared sizes when no budget is given', () => {
    const byDefault = createCaches(declared);
    assert.equal(byDefault.pages.maxWeight, 30 * MB);
    assert.equal(byDefault.indexes.maxWeight, 10 * MB);
    const halved = createCaches(declared, { budgetMb: 20 });
    assert.equal(halved.pages.maxWeight, 15 * MB);
    assert.equal(halved.indexes.maxWeight, 5 * MB);
  });

  it('are made per instance: what one service instance keeps, another in the same process does not see', () => {
    const first = createCaches(declared);
    const second = createCaches(declared);
    first.pages.set('a', 'kept', 10);
    assert.equal(first.pages.get('a'), 'kept');
    assert.equal(second.pages.get('a'), undefined);
    assert.equal(second.pages.size, 0);
  });

  it('drop the least recently used entries past their budget, and keep nothing heavier than it', () => {
    const { pages } = createCaches({ pages: declareCache<string>(1) });
    pages.set('a', 'a', MB / 2);
    pages.set('b', 'b', MB / 2);
    assert.equal(pages.get('a'), 'a');
    pages.set('c', 'c', MB / 2);
    assert.equal(pages.get('b'), undefined, 'b was the least recently used');
    assert.deepEqual([pages.get('a'), pages.get('c')], ['a', 'c']);
    pages.set('huge', 'huge', 2 * MB);
    assert.equal(pages.get('huge'), undefined);
    assert.equal(pages.weight, MB);
  });

  it('share one load per key among concurrent callers, and forget a failed one', async () => {
    const { pages } = createCaches(declared);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      pages.set('k', 'loaded', 6);
      return 'loaded';
    };
    const [one, two] = [pages.shared('k', load), pages.shared('k', load)];
    assert.equal(pages.loading('k'), one);
    assert.deepEqual(await Promise.all([one, two]), ['loaded', 'loaded']);
    assert.equal(loads, 1);
    assert.equal(pages.loading('k'), undefined);
    await assert.rejects(
      pages.shared('bad', () => Promise.reject(new Error('down'))),
      /down/,
    );
    assert.equal(pages.loading('bad'), undefined);
  });

  it("report each cache's entries, fill, budget, hits and misses in the instance's own registry", async () => {
    const registry = new Registry();
    const caches = createCaches(declared, { registry, budgetMb: 4 });
    const other = new Registry();
    createCaches(declared, { registry: other });
    caches.pages.set('a', 'x', 100);
    caches.pages.get('a');
    caches.pages.get('a');
    caches.pages.get('b');
    const text = await registry.metrics();
    for (const line of [
      'quire_cache_entries{cache="pages"} 1',
      'quire_cache_fill_bytes{cache="pages"} 100',
      `quire_cache_budget_bytes{cache="pages"} ${3 * MB}`,
      'quire_cache_hits_total{cache="pages"} 2',
      'quire_cache_misses_total{cache="pages"} 1',
      'quire_cache_hits_total{cache="indexes"} 0',
    ])
      assert.ok(text.includes(line), `${line} in\n${text}`);
    assert.ok((await other.metrics()).includes('quire_cache_hits_total{cache="pages"} 0'));
  });
});

describe('remembered', () => {
  it('computes once per input while it is among the last `max` asked, then again', () => {
    const computed: string[] = [];
    const upper = remembered(2, (input) => {
      computed.push(input);
      return input.toUpperCase();
    });
    assert.deepEqual(['a', 'b', 'a', 'b'].map(upper), ['A', 'B', 'A', 'B']);
    assert.deepEqual(computed, ['a', 'b']);
    upper('c'); // 'a' is the least recently asked: it goes
    assert.equal(upper('a'), 'A');
    assert.deepEqual(computed, ['a', 'b', 'c', 'a']);
  });
});
