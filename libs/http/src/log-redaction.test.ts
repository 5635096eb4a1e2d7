import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { redactSecretQuery } from './log-redaction';

describe('secret query redaction', () => {
  it('blanks share keys, visitor tokens and link signatures, and nothing else', () => {
    assert.equal(
      redactSecretQuery('/v1/orgs/o/sites/s/published?shareKey=abc&limit=2&visitorAuthToken=e.y.j&jwt_token=t#x'),
      '/v1/orgs/o/sites/s/published?shareKey=[redacted]&limit=2&visitorAuthToken=[redacted]&jwt_token=[redacted]#x',
    );
    assert.equal(redactSecretQuery('/v1/public/content/files/f?expires=1&signature=s1'), '/v1/public/content/files/f?expires=1&signature=[redacted]');
    assert.equal(
      redactSecretQuery('/sites/o/s/~/auth/oidc/callback?code=c0de&state=s&iss=https%3A%2F%2Fid'),
      '/sites/o/s/~/auth/oidc/callback?code=[redacted]&state=s&iss=https%3A%2F%2Fid',
    );
    assert.equal(redactSecretQuery('/x?page=2&sharer=1&codec=h264'), '/x?page=2&sharer=1&codec=h264');
  });
});
