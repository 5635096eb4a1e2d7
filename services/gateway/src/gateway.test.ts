import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { addMemberWithToken, bootstrapAdmin, revokeToken, startIdentity, withIdentityAdmin } from '@quire/identity';
import { apiClient, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { gatewayConfigSchema, type GatewayConfig } from './config';
import { startGateway } from './service';
import { gatewayConfigBeforeIdentity } from './test-config';

/**
 * The gateway in front of a real identity service; the other four services are down
 * (their ports refuse connections), which is what the failure cases need.
 */
describe('gateway', () => {
  let env: TestEnvironment;
  let identityService: Awaited<ReturnType<typeof startIdentity>>;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let config: GatewayConfig;
  let admin: { userId: string; organizationId: string; token: string };

  const api = (token?: string) => apiClient(`http://127.0.0.1:${gateway.port}`, token);

  beforeAll(async () => {
    env = await testEnvironment();
    const backend = testBackendConfig(env);
    identityService = await startIdentity(backend, { handleSignals: false });
    config = await gatewayConfigBeforeIdentity(backend, identityService, { RATE_LIMIT_POINTS: '40', BODY_LIMIT_BYTES: '1000', METRICS_PORT: '0' });
    gateway = await startGateway(config, { handleSignals: false });
    admin = await withIdentityAdmin(backend, (ctx) => bootstrapAdmin(ctx, { email: 'gw@example.com', organizationTitle: 'Gateway Org' }));
  });

  afterAll(async () => {
    await gateway.stop();
    await identityService.stop();
    await cleanupTestEnvironment(env);
  });

  it('requires a bearer token and refuses unknown ones with 401', async () => {
    for (const token of [undefined, 'qr_not-a-real-token']) {
      const response = await api(token).get('/v1/user');
      assert.equal(response.status, 401);
      assert.equal(response.body.error.code, 401);
      assert.equal(typeof response.body.error.message, 'string');
    }
    const malformed = await api().request('GET', '/v1/user', { headers: { authorization: 'Basic abc' } });
    assert.equal(malformed.status, 401);
  });

  it('forwards an authenticated request with a request id', async () => {
    const response = await api(admin.token).request('GET', '/v1/user', { headers: { 'x-request-id': 'trace-me-123' } });
    assert.equal(response.status, 200);
    assert.equal(response.body.id, admin.userId);
    assert.equal(response.headers.get('x-request-id'), 'trace-me-123');
    assert.ok(Number(response.headers.get('x-ratelimit-remaining')) >= 0);
    assert.equal(response.headers.get('x-ratelimit-limit'), '40');
  });

  it('strips internal principal headers sent from outside', async () => {
    // A forged principal for another user must not win over the caller's own token...
    const victim = await withIdentityAdmin(testBackendConfig(env), (ctx) =>
      addMemberWithToken(ctx, { organizationId: admin.organizationId, email: 'victim@example.com', role: 'read' }),
    );
    const { signPrincipal } = await import('@quire/runtime');
    const forged = signPrincipal('guessed-secret-guessed-secret-guessed-00', { userId: victim.userId, tokenId: 'x' });
    const headers = { 'x-quire-principal': forged.value, 'x-quire-signature': forged.signature };
    const mine = await api(admin.token).request('GET', '/v1/user', { headers });
    assert.equal(mine.body.id, admin.userId);
    // ...and without a token it is simply unauthenticated.
    const anonymous = await api().request('GET', '/v1/user', { headers });
    assert.equal(anonymous.status, 401);
  });

  it('forwards public routes without a token and without a principal', async () => {
    // Reaches identity (its own 404 for an unknown provider), not the gateway's 401.
    const saml = await api().get('/v1/public/saml/unknown-provider/start');
    assert.notEqual(saml.status, 401);
    assert.equal(saml.body.error.code, saml.status);
    // Content is down in this test: the request got past authentication to the proxy.
    const download = await api().get('/v1/public/content/files/f1');
    assert.equal(download.status, 503);
    // Anything else under /v1 still needs a token.
    assert.equal((await api().get('/v1/orgs')).status, 401);
  });

  it('stops accepting a revoked token at once, despite the cache', async () => {
    const backend = testBackendConfig(env);
    const member = await withIdentityAdmin(backend, (ctx) =>
      addMemberWithToken(ctx, { organizationId: admin.organizationId, email: 'leaver@example.com', role: 'edit' }),
    );
    assert.equal((await api(member.token).get('/v1/user')).status, 200); // now cached
    const tokens = await withIdentityAdmin(backend, (ctx) => ctx.models.ApiToken.find({ userId: member.userId }).lean());
    await withIdentityAdmin(backend, (ctx) => revokeToken(ctx, tokens[0]._id));
    assert.equal((await api(member.token).get('/v1/user')).status, 401);
  });

  it('answers 404 with the error body for unknown routes', async () => {
    const response = await api(admin.token).get('/v1/no-such-thing');
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 404);
    assert.equal((await api().get('/nowhere')).status, 404);
  });

  it('answers a fast 503 with the error body when the owning service is down', async () => {
    const started = Date.now();
    const response = await api(admin.token).get('/v1/spaces/abc');
    assert.equal(response.status, 503);
    assert.equal(response.body.error.code, 503);
    assert.match(response.body.error.message, /content/);
    assert.ok(Date.now() - started < 5_000, 'a refused connection must not wait for a timeout');
  });

  it('refuses a body over the size limit with 413', async () => {
    const response = await api(admin.token).post('/v1/orgs', { title: 'x'.repeat(2_000) });
    assert.equal(response.status, 413);
    assert.equal(response.body.error.code, 413);
  });

  it('is alive but not ready while services are down, and exports metrics on its internal listener only', async () => {
    assert.equal((await api().get('/healthz')).status, 200);
    const ready = await api().get('/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.identity, true);
    assert.equal(ready.body.checks.redis, true);
    assert.equal(ready.body.checks.content, false);
    assert.ok(gateway.metricsPort && gateway.metricsPort !== gateway.port, 'a port of its own');
    const internal = apiClient(`http://127.0.0.1:${gateway.metricsPort}`);
    const metrics = await internal.get('/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /quire_http_requests_total\{service="identity",method="GET",status="200"\}/);
    assert.equal((await internal.get('/v1/user')).status, 404, 'nothing else is served there');
    // The public listener has no /metrics, with or without a token.
    for (const token of [undefined, admin.token]) {
      const open = await api(token).get('/metrics');
      assert.equal(open.status, 404);
      assert.equal(open.body.error.code, 404);
    }
  });

  it('answers a URL over the limit with 414 and longer request lines with 431, both with the error body, never a reset', async () => {
    const query = (count: number) => Array.from({ length: count }, (_, i) => `p${i}=${'x'.repeat(9 * 1024)}`).join('&');
    // 2 × 9 KB: the URL limit (16 KB); 4 × 9 KB: over what the server reads as a request line and headers (32 KB).
    for (const [count, status] of [
      [2, 414],
      [3, 414],
      [4, 431],
      [10, 431],
    ]) {
      for (const token of [undefined, admin.token]) {
        const response = await api(token).get(`/v1/user?${query(count)}`);
        assert.equal(response.status, status, `${count} parameters of 9 KB`);
        assert.equal(response.body.error.code, status);
        assert.match(response.body.error.message, /too (long|large)/);
      }
    }
    // Just under the limit still reaches the service.
    const fits = await api(admin.token).get(`/v1/user?p=${'x'.repeat(15 * 1024)}`);
    assert.equal(fits.status, 200);
  });

  // Last: it spends this token's budget.
  it('rate limits per token with 429, Retry-After and X-RateLimit headers', async () => {
    const client = api(admin.token);
    let last;
    for (let i = 0; i < 45; i++) {
      last = await client.get('/v1/user');
      if (last.status === 429) break;
    }
    assert.equal(last!.status, 429);
    assert.equal(last!.body.error.code, 429);
    assert.ok(Number(last!.headers.get('retry-after')) >= 1);
    assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(Number(last!.headers.get('x-ratelimit-reset')) * 1000 > Date.now() - 1000);
  });

  // Last: it spends the failed-auth budget of 127.0.0.1.
  it('counts failed sign-ins against the socket address whatever X-Forwarded-For says (no trusted proxy)', async () => {
    let last;
    for (let i = 0; i < 45; i++) {
      last = await api('qr_wrong').request('GET', '/v1/user', { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      if (last.status === 429) break;
    }
    assert.equal(last!.status, 429, 'a forged X-Forwarded-For must not reset the limit');
  });

  it('believes X-Forwarded-For only from the proxies in TRUSTED_PROXIES', async () => {
    const behindProxy = await startGateway(gatewayConfigSchema.parse({ ...config, PORT: 0, TRUSTED_PROXIES: 'loopback' }), { handleSignals: false });
    try {
      const client = apiClient(`http://127.0.0.1:${behindProxy.port}`, 'qr_wrong');
      const statuses = new Set<number>();
      // Each client address gets its own budget when the proxy (loopback here) is trusted.
      for (let i = 0; i < 45; i++) statuses.add((await client.request('GET', '/v1/user', { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status);
      assert.deepEqual([...statuses], [401]);
    } finally {
      await behindProxy.stop();
    }
  });
});
