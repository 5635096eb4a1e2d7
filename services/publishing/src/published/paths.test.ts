import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { pathOf, searchQuery } from './paths';

describe("a published site's paths", () => {
  it('answer each address with the first path that matches it, under its audience', () => {
    const answers = (address: string) => {
      const path = pathOf(address.split('/').filter(Boolean));
      return `${path.name} (${path.audience})`;
    };
    assert.equal(answers('~/site.css'), 'stylesheet (anyone)');
    assert.equal(answers('robots.txt'), 'robots.txt (site)');
    assert.equal(answers('sitemap.xml'), 'sitemap.xml (visitors)');
    assert.equal(answers('llms.txt'), 'llms.txt (visitors)');
    assert.equal(answers('llms-full.txt'), 'llms-full.txt (visitors)');
    assert.equal(answers('~/search'), 'search (visitors)');
    assert.equal(answers('~/files/space/file'), 'files (visitors)');
    for (const other of ['~', '~/search/more', '~/files/space', '~/guide.md', '~/site.css/x'])
      assert.equal(answers(other), 'other ~/ addresses (visitors)', other);
    assert.equal(answers('guides/install.md'), 'page as markdown (visitors)');
    for (const page of ['', 'guides/install', '.md', 'docs/robots.txt', 'sitemap.xml/x']) assert.equal(answers(page), 'page (visitors)', page);
  });

  it('read the search query as one trimmed string of at most 200 characters, anything else as no query', () => {
    assert.deepEqual(searchQuery.parse({ q: '  install guide ' }), { q: 'install guide' });
    assert.equal(searchQuery.parse({ q: 'x'.repeat(500) }).q.length, 200);
    assert.deepEqual(searchQuery.parse({}), { q: '' });
    assert.deepEqual(searchQuery.parse({ q: ['a', 'b'] }), { q: '' });
    assert.deepEqual(searchQuery.parse({ q: { nested: 'x' }, share: 'secret' }), { q: '' });
  });
});
