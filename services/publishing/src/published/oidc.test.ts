import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { locationOnSite } from './oidc';
import { pathOf } from './paths';

/* Where a signed-in visitor is sent back to: an address of the same site, never anywhere else. */

describe('OpenID Connect sign-in addresses', () => {
  it('are paths of every site, answered before any page', () => {
    for (const [address, name] of [
      ['~/auth/oidc/login', 'sign-in with OpenID Connect'],
      ['~/auth/oidc/callback', 'back from OpenID Connect'],
      ['~/auth/logout', 'sign out'],
    ])
      assert.equal(`${pathOf(address.split('/')).name} (${pathOf(address.split('/')).audience})`, `${name} (site)`);
    assert.equal(pathOf(['~', 'auth', 'oidc']).name, 'other ~/ addresses');
  });

  it('send the visitor back only to an address of the same site', () => {
    const gateway = { base: 'https://api.example.com/sites/org/docs/', basePath: '/sites/org/docs/' };
    assert.equal(locationOnSite(gateway, '/sites/org/docs/guides/install?tab=2'), '/sites/org/docs/guides/install?tab=2');
    assert.equal(locationOnSite(gateway, '/sites/org/docs/'), '/sites/org/docs/');
    for (const elsewhere of [
      undefined,
      ['/sites/org/docs/a'],
      '',
      'https://evil.example/sites/org/docs/',
      '//evil.example/sites/org/docs/',
      '/sites/org/other/',
      '/sites/org/docs/../other/',
      '/sites/org/docs/%2e%2e/other/',
      '/sites/org/docs\\..\\other',
      '/sites/org/docs/~/auth/logout',
      '/sites/org/docs/\r\nlocation: x',
    ])
      assert.equal(locationOnSite(gateway, elsewhere), '/sites/org/docs/', String(elsewhere));

    const hosted = { base: 'https://docs.example.com/', basePath: '/' };
    assert.equal(locationOnSite(hosted, '/install'), '/install');
    assert.equal(locationOnSite(hosted, '//evil.example/'), '/');
    assert.equal(locationOnSite(hosted, '/\\evil.example/'), '/');
    assert.equal(locationOnSite(hosted, 'https://evil.example/'), '/');
  });
});
