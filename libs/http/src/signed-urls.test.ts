import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { DOWNLOAD_URL_LIFETIME_MS, signedUrl, verifySignedUrl } from './signed-urls';

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

  it('are on the files origin when one is set, else on the public one', () => {
    assert.equal(new URL(signedUrl(config, '/v1/public/content/files/f1', ['r1'])).origin, 'https://docs.example.com');
    const files = { ...config, FILES_BASE_URL: 'https://files.example.net/' };
    const url = new URL(signedUrl(files, '/v1/public/content/files/f1', ['r1']));
    assert.equal(url.origin, 'https://files.example.net');
    assert.equal(url.pathname, '/v1/public/content/files/f1');
    // The host is not signed: the same address verifies whichever origin carried it.
    verifySignedUrl(config, '/v1/public/content/files/f1', ['r1'], Object.fromEntries(url.searchParams));
  });
});
