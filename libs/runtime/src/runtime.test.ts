import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { z } from 'zod';
import { createServiceClients } from './clients';
import { baseConfigSchema, loadConfig } from './config';
import { hashSecret, newId, newSecret } from './ids';
import { databaseUri } from './mongo';
import { signCaller, signPrincipal, verifyCaller, verifyPrincipal } from './principal';
import { roleAtLeast, roleFromProto, roleToProto, strongestRole } from './roles';

const SECRET = 'a-secret-that-is-long-enough-for-hmac-0001';

describe('principal header signing', () => {
  it('round-trips a principal', () => {
    const { value, signature } = signPrincipal(SECRET, { userId: 'u1', tokenId: 't1' });
    assert.deepEqual(verifyPrincipal(SECRET, value, signature), { userId: 'u1', tokenId: 't1' });
  });

  it('refuses a tampered value, a wrong key, a missing signature and a stale assertion', () => {
    const { value, signature } = signPrincipal(SECRET, { userId: 'u1', tokenId: 't1' });
    const forged = Buffer.from(JSON.stringify({ userId: 'admin', tokenId: 't1', iat: Math.floor(Date.now() / 1000) })).toString('base64url');
    assert.equal(verifyPrincipal(SECRET, forged, signature), undefined);
    assert.equal(verifyPrincipal('another-secret-another-secret-another-1', value, signature), undefined);
    assert.equal(verifyPrincipal(SECRET, value, undefined), undefined);
    const old = signPrincipal(SECRET, { userId: 'u1', tokenId: 't1' }, Date.now() - 10 * 60_000);
    assert.equal(verifyPrincipal(SECRET, old.value, old.signature), undefined);
  });

  it('signs service callers the same way', () => {
    const { caller, signature } = signCaller(SECRET, 'publishing');
    assert.equal(verifyCaller(SECRET, caller, signature), 'publishing');
    assert.equal(verifyCaller(SECRET, caller.replace('publishing', 'content'), signature), undefined);
    const stale = signCaller(SECRET, 'publishing', Date.now() - 10 * 60_000);
    assert.equal(verifyCaller(SECRET, stale.caller, stale.signature), undefined);
  });
});

describe('ids and secrets', () => {
  it('makes distinct opaque ids of the asked length', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId()));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^[0-9A-Za-z]{20}$/);
  });

  it('hashes secrets one way and deterministically', () => {
    const secret = newSecret();
    assert.equal(hashSecret(secret), hashSecret(secret));
    assert.notEqual(hashSecret(secret), secret);
    assert.match(hashSecret(secret), /^[0-9a-f]{64}$/);
  });
});

describe('configuration', () => {
  it('names every bad variable without echoing values', () => {
    assert.throws(
      () => loadConfig(baseConfigSchema, { INTERNAL_HMAC_SECRET: 'short-secret-value', REDIS_URL: 'http://nope' }),
      (error: Error) => error.message.includes('INTERNAL_HMAC_SECRET') && error.message.includes('REDIS_URL') && !error.message.includes('short-secret-value'),
    );
  });

  it('applies defaults', () => {
    const config = loadConfig(baseConfigSchema.extend({ EXTRA: z.string().default('x') }), { INTERNAL_HMAC_SECRET: SECRET });
    assert.equal(config.REDIS_URL, 'redis://127.0.0.1:6379');
    assert.equal(config.DB_PREFIX, 'quire_');
    assert.equal(config.EXTRA, 'x');
  });

  it("derives each service's database from MONGODB_URI, keeping options", () => {
    assert.equal(databaseUri('identity', { MONGODB_URI: 'mongodb://h:1', DB_PREFIX: 'quire_' }, {}), 'mongodb://h:1/quire_identity');
    assert.equal(
      databaseUri('content', { MONGODB_URI: 'mongodb://u:p@h1:1,h2:2/admin?replicaSet=rs', DB_PREFIX: 't_' }, {}),
      'mongodb://u:p@h1:1,h2:2/t_content?replicaSet=rs',
    );
    assert.equal(
      databaseUri('content', { MONGODB_URI: 'mongodb://h:1', DB_PREFIX: 'quire_' }, { CONTENT_MONGODB_URI: 'mongodb://other/db' }),
      'mongodb://other/db',
    );
    assert.throws(() => databaseUri('content', { MONGODB_URI: undefined, DB_PREFIX: 'quire_' }, {}), /MONGODB_URI/);
  });
});

describe('roles', () => {
  it('orders roles admin > create > review > edit > comment > read > guest', () => {
    assert.ok(roleAtLeast('admin', 'create'));
    assert.ok(roleAtLeast('review', 'edit'));
    assert.ok(!roleAtLeast('edit', 'review'));
    assert.ok(!roleAtLeast(null, 'read'));
    assert.equal(strongestRole('read', null, 'edit', 'comment'), 'edit');
    assert.equal(strongestRole(null, undefined), null);
  });

  it('maps to and from the proto enum', () => {
    for (const role of ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const) assert.equal(roleFromProto(roleToProto(role)), role);
    assert.equal(roleFromProto(roleToProto(null)), null);
  });
});

describe('service clients', () => {
  it('are created on first use, and a missing address names its variable', () => {
    const config = loadConfig(baseConfigSchema, { INTERNAL_HMAC_SECRET: SECRET, IDENTITY_GRPC_ADDR: '127.0.0.1:1' });
    const clients = createServiceClients(config, 'test');
    assert.equal(typeof clients.identity.resolveToken, 'function');
    assert.equal(clients.identity, clients.identity, 'one client per service');
    assert.throws(() => clients.content, /CONTENT_GRPC_ADDR is required/);
  });
});
