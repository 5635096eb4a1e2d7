import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { HttpError } from '@quire/http';
import type { PublishingConfig } from '../config';
import type { SiteDoc } from '../db/models';
import { checkIssuer, oidcSettingsOf, presentOidc } from './oidc';
import { sessionToken, visitorToken } from './visitor-auth';

/* The rules of a site's OpenID Connect settings and of the session a sign-in gives, without a provider. */

const at = new Date('2024-01-01T00:00:00Z');
const strict = { PUBLISHING_ALLOW_PRIVATE_NETWORKS: false, INTERNAL_HMAC_SECRET: 'x'.repeat(32) } as PublishingConfig;
const lenient = { ...strict, PUBLISHING_ALLOW_PRIVATE_NETWORKS: true } as PublishingConfig;

function siteOf(oidc?: SiteDoc['visitorAuth']['oidc']): SiteDoc {
  return {
    _id: 'site1',
    organizationId: 'org1',
    type: 'basic',
    title: 'Members',
    visibility: 'visitor-auth',
    published: true,
    agentsContext: 'included',
    adaptiveContent: true,
    positionSeq: 0,
    visitorAuth: { privateKey: 'the site key, long enough for HS256', backend: 'custom', oidc },
    createdAt: at,
    updatedAt: at,
  } as SiteDoc;
}

/** The 400 `work` throws, by its message. */
function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof HttpError && error.status === 400, String(error));
    return error.message;
  }
  assert.fail('no 400');
}

describe("a site's OpenID Connect provider", () => {
  it('is an https issuer on an address the egress policy allows (http and private addresses only when private networks are allowed)', () => {
    assert.equal(checkIssuer(strict, 'https://id.example.com/realms/docs'), 'https://id.example.com/realms/docs');
    assert.match(
      refusal(() => checkIssuer(strict, 'http://id.example.com')),
      /^oidc\.issuer: must be an https URL/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'https://127.0.0.1:8443')),
      /^oidc\.issuer: .*not allowed/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'https://localhost')),
      /^oidc\.issuer: .*not allowed/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'https://10.0.0.7')),
      /^oidc\.issuer: .*not allowed/,
    );
    assert.equal(checkIssuer(lenient, 'http://127.0.0.1:8443'), 'http://127.0.0.1:8443');
    assert.match(
      refusal(() => checkIssuer(lenient, 'http://169.254.169.254')),
      /^oidc\.issuer: .*not allowed/,
      'metadata never',
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'https://id.example.com/?tenant=a')),
      /^oidc\.issuer: must have no query or fragment/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'https://id.example.com/#a')),
      /^oidc\.issuer: must have no query or fragment/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'https://user:pass@id.example.com')),
      /^oidc\.issuer: URLs with credentials/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'not a url')),
      /^oidc\.issuer: not a valid URL/,
    );
    assert.match(
      refusal(() => checkIssuer(strict, 'ftp://id.example.com')),
      /^oidc\.issuer: only http and https/,
    );
  });

  it('keeps the client secret sealed, asks for it again for another provider or client, and always asks for openid', () => {
    const issuer = 'https://id.example.com';
    const set = oidcSettingsOf(strict, siteOf(), { issuer, clientId: 'docs', clientSecret: 'the secret', scopes: ['profile'] });
    assert.ok(set);
    assert.deepEqual(set.scopes, ['openid', 'profile']);
    assert.ok(!JSON.stringify(set).includes('the secret'), 'sealed');
    assert.match(
      refusal(() => oidcSettingsOf(strict, siteOf(), { issuer, clientId: 'docs' })),
      /^oidc\.clientSecret: required/,
    );

    const kept = oidcSettingsOf(strict, siteOf(set), { issuer, clientId: 'docs' });
    assert.equal(kept?.sealedClientSecret, set.sealedClientSecret, 'the same provider and client keep their secret');
    assert.deepEqual(kept?.scopes, ['openid', 'profile'], 'and their scopes');
    assert.match(
      refusal(() => oidcSettingsOf(strict, siteOf(set), { issuer: 'https://other.example.com', clientId: 'docs' })),
      /^oidc\.clientSecret/,
    );
    assert.match(
      refusal(() => oidcSettingsOf(strict, siteOf(set), { issuer, clientId: 'other' })),
      /^oidc\.clientSecret/,
    );
    assert.deepEqual(oidcSettingsOf(strict, siteOf(), { issuer, clientId: 'docs', clientSecret: 's' })?.scopes, ['openid', 'profile', 'email']);
    assert.equal(oidcSettingsOf(strict, siteOf(set), null), null);

    const shown = presentOidc(siteOf(set), 'https://docs.example.com/');
    assert.deepEqual(shown, {
      issuer,
      clientId: 'docs',
      scopes: ['openid', 'profile'],
      clientSecretSet: true,
      redirectURL: 'https://docs.example.com/~/auth/oidc/callback',
      postLogoutRedirectURL: 'https://docs.example.com/',
    });
    assert.equal(presentOidc(siteOf(), 'https://docs.example.com/'), undefined);
  });

  it("gives a signed-in visitor a session of the site's kind: the ID token's claims about them, until it expires", () => {
    const site = siteOf();
    const now = Math.floor(Date.now() / 1000);
    const idClaims = {
      iss: 'https://id.example.com',
      aud: 'docs',
      sub: 'u1',
      exp: now + 600,
      iat: now,
      nonce: 'n',
      at_hash: 'h',
      sid: 's',
      plan: 'pro',
      name: 'Ada',
    };
    const { token, expires } = sessionToken(site, idClaims);
    assert.equal(expires.getTime(), (now + 600) * 1000);
    assert.deepEqual(visitorToken(site, token).claims, { plan: 'pro', name: 'Ada' });
    const long = sessionToken(site, { ...idClaims, exp: now + 7 * 24 * 3600 });
    assert.ok(long.expires.getTime() <= (now + 12 * 3600 + 1) * 1000, 'at most 12 hours');
  });
});
