import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import type { SiteDoc, SiteSectionDoc, SiteSpaceDoc } from '../db/models';
import { addressKey, sourceKey, variantPlacements, wildcardSuffix, withSuffix } from './site-addresses';

describe("a site's addresses in canonical form", () => {
  it('encode decoded segments once, whatever encoding a source was written in', () => {
    assert.equal(addressKey([]), '/');
    assert.equal(addressKey(['guides', 'a b', 'é']), '/guides/a%20b/%C3%A9');
    assert.deepEqual(sourceKey('/guides/a%20b/%c3%a9'), { key: '/guides/a%20b/%C3%A9', wildcard: false, prefix: null });
    assert.deepEqual(sourceKey('/old/*'), { key: '/old/*', wildcard: true, prefix: '/old/' });
    assert.deepEqual(sourceKey('/old*'), { key: '/old*', wildcard: true, prefix: '/old' });
    assert.equal(sourceKey('/a+b').key, addressKey(['a+b']), 'a source and the address asked meet');
  });

  it('match wildcards by prefix and carry what the star matched', () => {
    assert.equal(wildcardSuffix('/old/', '/old/a/b'), '/a/b');
    assert.equal(wildcardSuffix('/old/', '/old'), '');
    assert.equal(wildcardSuffix('/old/', '/older'), undefined);
    assert.equal(wildcardSuffix('/old', '/older'), 'er');
    assert.equal(wildcardSuffix('/old', '/new'), undefined);
    assert.equal(withSuffix('https://example.com/docs/', '/a/b'), 'https://example.com/docs/a/b');
    assert.equal(withSuffix('/site/new', 'er'), '/site/newer');
    assert.equal(withSuffix('/site/new', ''), '/site/new');
  });

  it('place each variant under its section and its own path, defaults left out', () => {
    const site = { _id: 'site', defaultSectionId: 'guides', defaultSiteSpaceId: null } as SiteDoc;
    const section = (id: string, path: string, position: number) => ({ _id: id, path, position, defaultSiteSpaceId: null }) as SiteSectionDoc;
    const variant = (id: string, sectionId: string, path: string, position: number) => ({ _id: id, sectionId, path, position }) as SiteSpaceDoc;
    const placements = variantPlacements({
      site,
      sections: [section('guides', 'guides', 1), section('api', 'api', 2)],
      groups: [],
      siteSpaces: [variant('g', 'guides', 'g', 3), variant('a1', 'api', 'v1', 4), variant('a2', 'api', 'v2', 5)],
    });
    assert.deepEqual(
      placements.map((p) => [p.siteSpace._id, p.prefix.join('/'), p.alternates.map((a) => a.join('/'))]),
      [
        ['g', '', ['guides']],
        ['a1', 'api', []],
        ['a2', 'api/v2', []],
      ],
    );
  });
});
