import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import type { RevisionFileDoc, RevisionPageDoc } from './revision-store';
import { classifyHref, classifyLinks, extractHrefs, linkTargets } from './links';
import { contentHash } from './revisions';

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
