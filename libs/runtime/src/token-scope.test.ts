import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from '@jest/globals';
import { runWithContext } from './context';
import { signPrincipal, verifyPrincipal } from './principal';
import { outsideTokenScope, tokenScope } from './token-scope';

const SECRET = 'a-secret-that-is-long-enough-for-hmac-0002';

describe('token scope', () => {
  it('signs and verifies the scope with the principal, and nothing else the object carries', () => {
    const scoped = signPrincipal(SECRET, { userId: 'u1', tokenId: 't1', organizationId: 'o1', tokenHash: 'h' } as never);
    assert.deepEqual(verifyPrincipal(SECRET, scoped.value, scoped.signature), { userId: 'u1', tokenId: 't1', organizationId: 'o1' });
    assert.equal(Buffer.from(scoped.value, 'base64url').toString('utf8').includes('tokenHash'), false);
    const unscoped = signPrincipal(SECRET, { userId: 'u1', tokenId: 't1' });
    assert.deepEqual(verifyPrincipal(SECRET, unscoped.value, unscoped.signature), { userId: 'u1', tokenId: 't1' });
  });

  it('refuses a principal whose scope is not a non-empty string, even signed', () => {
    const valid = Buffer.from(JSON.stringify({ userId: 'u1', tokenId: 't1', organizationId: 'o1', iat: Math.floor(Date.now() / 1000) })).toString('base64url');
    assert.equal(
      verifyPrincipal(SECRET, valid, createHmac('sha256', SECRET).update(valid).digest('base64url'))?.organizationId,
      'o1',
      'the MAC is the one signPrincipal makes',
    );
    for (const organizationId of [42, '', ['o1'], null]) {
      const value = Buffer.from(JSON.stringify({ userId: 'u1', tokenId: 't1', organizationId, iat: Math.floor(Date.now() / 1000) })).toString('base64url');
      const signature = createHmac('sha256', SECRET).update(value).digest('base64url');
      assert.equal(verifyPrincipal(SECRET, value, signature), undefined);
    }
  });

  it('keeps a scoped caller out of other organizations, for their own lookups only', () => {
    const principal = { userId: 'u1', tokenId: 't1', organizationId: 'o1' };
    runWithContext({ requestId: 'r', principal }, () => {
      assert.equal(tokenScope(), 'o1');
      assert.equal(outsideTokenScope('o1', 'u1'), false, 'its own organization');
      assert.equal(outsideTokenScope('o2', 'u1'), true, 'any other organization');
      assert.equal(outsideTokenScope('o2', 'u2'), false, 'another user looked up on the caller’s behalf');
    });
    runWithContext({ requestId: 'r', principal: { userId: 'u1', tokenId: 't1' } }, () => {
      assert.equal(tokenScope(), undefined);
      assert.equal(outsideTokenScope('o2', 'u1'), false, 'an unscoped token reaches every membership');
    });
    assert.equal(outsideTokenScope('o2', 'u1'), false, 'no request: no scope (service-to-service work)');
  });
});
