import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from '@jest/globals';
import { runWithContext } from './context';
import { requireCallingService } from './grpc';
import { signPrincipal, verifyPrincipal } from './principal';
import { installationScopes } from './token-scope';

const SECRET = 'a-secret-that-is-long-enough-for-hmac-0003';

describe('installation principals', () => {
  it('forwards an installation token’s scopes, signed, and keeps its expiry at the gateway', () => {
    const signed = signPrincipal(SECRET, { userId: 'u1', tokenId: 't1', organizationId: 'o1', installationScopes: ['space:content:read'], expiresAt: 1 });
    const principal = verifyPrincipal(SECRET, signed.value, signed.signature);
    assert.deepEqual(principal, { userId: 'u1', tokenId: 't1', organizationId: 'o1', installationScopes: ['space:content:read'] });
    assert.deepEqual(
      runWithContext({ requestId: 'r', principal }, () => installationScopes()),
      ['space:content:read'],
    );
    assert.equal(
      runWithContext({ requestId: 'r', principal: { userId: 'u1', tokenId: 't1' } }, () => installationScopes()),
      undefined,
    );
  });

  it('refuses scopes that are not a list of strings, even signed', () => {
    for (const installationScopes of ['space:content:read', [1], { a: 1 }, null]) {
      const value = Buffer.from(JSON.stringify({ userId: 'u1', tokenId: 't1', installationScopes, iat: Math.floor(Date.now() / 1000) })).toString('base64url');
      const signature = createHmac('sha256', SECRET).update(value).digest('base64url');
      assert.equal(verifyPrincipal(SECRET, value, signature), undefined);
    }
  });

  it('lets a gRPC method require its calling service', () => {
    assert.throws(() => requireCallingService('integrations'), /only integrations may call this method/);
    runWithContext({ requestId: 'r', callingService: 'integrations' }, () => requireCallingService('integrations'));
    assert.throws(() => runWithContext({ requestId: 'r', callingService: 'content' }, () => requireCallingService('integrations')));
  });
});
