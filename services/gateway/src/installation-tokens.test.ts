import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { bootstrapAdmin, startIdentity, withIdentityAdmin } from '@quire/identity';
import { identity } from '@quire/proto';
import { createGrpcClient, createRedis, createLogger, hashSecret, tokenCacheKey, type BackendConfig, type RedisClient } from '@quire/runtime';
import { apiClient, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { startGateway } from './service';
import { gatewayConfigBeforeIdentity } from './test-config';

/**
 * Installation tokens at the gateway, in front of a real identity service: they authenticate
 * until they expire or are revoked, and no cache serves them past either.
 */
describe('gateway: installation tokens', () => {
  let env: TestEnvironment;
  let backend: BackendConfig;
  let identityService: Awaited<ReturnType<typeof startIdentity>>;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let redis: RedisClient;
  let integrations: identity.IdentityServiceClient;
  let organizationId: string;
  let counter = 0;

  const api = (token?: string) => apiClient(`http://127.0.0.1:${gateway.port}`, token);
  const issue = () =>
    integrations.issueInstallationToken({
      installationId: `gateway-installation-${++counter}`,
      organizationId,
      integrationName: 'gateway-probe',
      integrationTitle: 'Gateway probe',
      scopes: ['space:content:read'],
    });

  beforeAll(async () => {
    env = await testEnvironment();
    backend = testBackendConfig(env);
    identityService = await startIdentity(backend, { handleSignals: false });
    const config = await gatewayConfigBeforeIdentity(backend, identityService, { AUTH_CACHE_SECONDS: '30' });
    gateway = await startGateway(config, { handleSignals: false });
    redis = createRedis(backend, createLogger('gateway-test', 'silent'));
    integrations = createGrpcClient(identity.IdentityServiceDefinition, {
      address: `127.0.0.1:${identityService.grpcPort}`,
      secret: backend.INTERNAL_HMAC_SECRET,
      caller: 'integrations',
      deadlineMs: 5_000,
    });
    ({ organizationId } = await withIdentityAdmin(backend, (ctx) => bootstrapAdmin(ctx, { email: 'tokens@example.com', organizationTitle: 'Tokens Org' })));
  });

  afterAll(async () => {
    redis?.disconnect();
    await gateway?.stop();
    await identityService?.stop();
    if (env) await cleanupTestEnvironment(env);
  });

  it('authenticates an installation token as the installation, and caches it no longer than it lives', async () => {
    const { token } = await issue();
    // Make it expire in a moment (identity's answer carries the expiry to the gateway).
    const expiresAt = new Date(Date.now() + 2_000);
    await withIdentityAdmin(backend, (ctx) => ctx.models.ApiToken.updateOne({ hash: hashSecret(token) }, { $set: { expiresAt } }));
    const self = await api(token).get('/v1/user');
    assert.equal(self.status, 200, JSON.stringify(self.body));
    assert.equal(self.body.displayName, 'Gateway probe');
    const ttl = await redis.ttl(tokenCacheKey(hashSecret(token)));
    assert.ok(ttl >= 0 && ttl <= 2, `cached for ${ttl} s, not the configured 30`);
    assert.equal((await api(token).get('/v1/user')).status, 200, 'served from the caches meanwhile');

    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 100));
    const expired = await api(token).get('/v1/user');
    assert.equal(expired.status, 401, JSON.stringify(expired.body));
  });

  it('answers 401 as soon as the installation’s tokens are revoked, whatever the caches held', async () => {
    const { token } = await issue();
    assert.equal((await api(token).get('/v1/user')).status, 200);
    assert.equal((await api(token).get('/v1/user')).status, 200, 'now in both caches');
    await integrations.revokeInstallationTokens({ installationIds: [`gateway-installation-${counter}`] });
    assert.equal((await api(token).get('/v1/user')).status, 401);
  });
});
