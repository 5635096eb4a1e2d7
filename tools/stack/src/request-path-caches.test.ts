import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import pino from 'pino';
import { startContent } from '@quire/content';
import { freePort } from '@quire/datastore';
import { gatewayConfigSchema, startGateway } from '@quire/gateway';
import { addMemberWithToken, bootstrapAdmin, revokeToken, startIdentity, withIdentityAdmin } from '@quire/identity';
import { publishingConfigSchema, startPublishing } from '@quire/publishing';
import { createLogger, createRedis, hashSecret, tokenCacheKey, type BackendConfig, type Role } from '@quire/runtime';
import { apiClient, cleanupTestEnvironment, testBackendConfig, testEnvironment, type ApiClient, type TestEnvironment } from '@quire/testkit';

/*
 * The request path's caches (issue 12, item 5), through the gateway: content and publishing
 * answer from their membership caches and the gateway from its token memory, with no gRPC call
 * to identity; and the request right after a change made through the API (role, team, removal,
 * revocation) sees it, with no stale window. The services run in this process, so identity's
 * log tells which gRPC calls each one made.
 */

/** gRPC calls identity served, by `<caller> <method>`, from its debug log line per call. */
const identityCalls = new Map<string, number>();
const identityLogger = pino(
  { level: 'debug', base: { service: 'identity' } },
  {
    write(line: string) {
      const entry = JSON.parse(line) as { msg?: string; caller?: string; method?: string };
      if (entry.msg !== 'grpc call' || !entry.caller || !entry.method) return;
      const key = `${entry.caller} ${entry.method.slice(entry.method.lastIndexOf('/') + 1)}`;
      identityCalls.set(key, (identityCalls.get(key) ?? 0) + 1);
    },
  },
);
const calls = (key: string) => identityCalls.get(key) ?? 0;

describe('request path caches: memberships and tokens, invalidated by identity', () => {
  let env: TestEnvironment;
  const stops: Array<() => Promise<void>> = [];
  let config: BackendConfig;
  let admin: ApiClient;
  let member: ApiClient;
  let memberToken: string;
  let ORG: string;
  let MEMBER: string;
  let SPACE: string;
  /** A space only grants open (default level null), granted to TEAM. */
  let TEAM_SPACE: string;

  beforeAll(async () => {
    env = await testEnvironment();
    const grpc = { content: await freePort(), publishing: await freePort() };
    const down = await freePort();
    const base = testBackendConfig(env, {
      CONTENT_GRPC_ADDR: `127.0.0.1:${grpc.content}`,
      PUBLISHING_GRPC_ADDR: `127.0.0.1:${grpc.publishing}`,
      INTEGRATIONS_GRPC_ADDR: `127.0.0.1:${down}`,
      INSIGHTS_GRPC_ADDR: `127.0.0.1:${down}`,
    });
    const identity = await startIdentity(base, { handleSignals: false, logger: identityLogger });
    config = { ...base, IDENTITY_GRPC_ADDR: `127.0.0.1:${identity.grpcPort}` };
    const content = await startContent({ ...config, GRPC_PORT: grpc.content }, { handleSignals: false });
    const publishing = await startPublishing(publishingConfigSchema.parse({ ...config, GRPC_PORT: grpc.publishing }), {
      handleSignals: false,
      subscribeToEvents: false,
    });
    const http = (port: number) => `http://127.0.0.1:${port}`;
    const gateway = await startGateway(
      gatewayConfigSchema.parse({
        ...config,
        PORT: 0,
        IDENTITY_HTTP_URL: http(identity.httpPort),
        CONTENT_HTTP_URL: http(content.httpPort),
        PUBLISHING_HTTP_URL: http(publishing.httpPort),
        INTEGRATIONS_HTTP_URL: http(down),
        INSIGHTS_HTTP_URL: http(down),
        CONTENT_GRPC_ADDR: `127.0.0.1:${content.grpcPort}`,
        PUBLISHING_GRPC_ADDR: `127.0.0.1:${publishing.grpcPort}`,
        RATE_LIMIT_POINTS: '100000',
      }),
      { handleSignals: false },
    );
    stops.push(gateway.stop, publishing.stop, content.stop, identity.stop);

    const made = await withIdentityAdmin(config, async (ctx) => {
      const owner = await bootstrapAdmin(ctx, { email: 'owner@path.test', organizationTitle: 'Request path' });
      const editor = await addMemberWithToken(ctx, { organizationId: owner.organizationId, email: 'editor@path.test', role: 'edit' });
      return { owner, editor };
    });
    const gatewayUrl = http(gateway.port);
    admin = apiClient(gatewayUrl, made.owner.token);
    member = apiClient(gatewayUrl, made.editor.token);
    memberToken = made.editor.token;
    [ORG, MEMBER] = [made.owner.organizationId, made.editor.userId];
    SPACE = (await admin.post(`/v1/orgs/${ORG}/spaces`, { title: 'Open' })).body.id;
    TEAM_SPACE = (await admin.post(`/v1/orgs/${ORG}/spaces`, { title: 'Team only' })).body.id;
    assert.equal((await admin.patch(`/v1/spaces/${TEAM_SPACE}`, { defaultLevel: null })).status, 200);
  });

  afterAll(async () => {
    for (const stop of stops) await stop();
    await cleanupTestEnvironment(env);
  });

  /** The member's role on SPACE as content reports it (null: 404), and whether publishing lets them list sites. */
  const standing = async () => {
    const [space, sites] = await Promise.all([member.get(`/v1/spaces/${SPACE}`), member.get(`/v1/orgs/${ORG}/sites`)]);
    assert.ok([200, 404].includes(space.status) && [200, 404].includes(sites.status), `${space.status} ${sites.status}`);
    const permissions = space.body.permissions as Record<string, boolean> | undefined;
    const role = !permissions ? null : permissions.admin ? 'admin' : permissions.edit ? 'edit' : permissions.comment ? 'comment' : 'read';
    return { space: role, sites: sites.status === 200 };
  };
  const setRole = async (role: Role | null) => assert.equal((await admin.patch(`/v1/orgs/${ORG}/members/${MEMBER}`, { role })).status, 200);

  it('answers a hot caller from the caches: no GetMembership from content or publishing, no ResolveToken from the gateway', async () => {
    // Each service subscribes to identity's announcements when it first needs a membership, and
    // caches nothing until subscribed: a few requests warm it up.
    for (let attempt = 0; ; attempt++) {
      identityCalls.clear();
      await standing();
      if (identityCalls.size === 0) break;
      assert.ok(attempt < 50, `still calling identity after ${attempt} requests: ${JSON.stringify([...identityCalls])}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let i = 0; i < 3; i++) assert.deepEqual(await standing(), { space: 'edit', sites: true });
    assert.equal(calls('content GetMembership'), 0);
    assert.equal(calls('publishing GetMembership'), 0);
    assert.equal(calls('gateway ResolveToken'), 0);

    // Not from Redis either: with the shared entry gone, the gateway still knows the token.
    const redis = createRedis(config, createLogger('test', 'silent'));
    assert.equal(await redis.del(tokenCacheKey(hashSecret(memberToken))), 1);
    redis.disconnect();
    assert.equal((await member.get(`/v1/spaces/${SPACE}`)).status, 200);
    assert.equal(calls('gateway ResolveToken'), 0);
  });

  it('sees every role change in the very next request, in content and in publishing', async () => {
    const roles: Array<Role | null> = ['read', 'admin', null, 'edit', 'comment', null, 'admin', 'read', 'edit'];
    for (const role of roles) {
      await setRole(role);
      identityCalls.clear();
      const expected = { space: role, sites: role !== null };
      assert.deepEqual(await standing(), expected, `right after the change to ${role}`);
      // Reloaded once each, then served from the cache again.
      assert.equal(calls('content GetMembership'), 1);
      assert.equal(calls('publishing GetMembership'), 1);
      assert.deepEqual(await standing(), expected);
      assert.equal(calls('content GetMembership'), 1);
      assert.equal(calls('publishing GetMembership'), 1);
    }
  });

  it('sees team changes in the very next request: joining, leaving, the team deleted', async () => {
    await setRole('read');
    const team = (await admin.put(`/v1/orgs/${ORG}/teams`, { title: 'Writers', members: [] })).body.id as string;
    assert.equal((await admin.post(`/v1/spaces/${TEAM_SPACE}/permissions`, { role: 'edit', teams: [team] })).status, 204);
    const teamSpaceRole = async () => {
      const response = await member.get(`/v1/spaces/${TEAM_SPACE}`);
      return response.status === 404 ? null : response.body.permissions.edit ? 'edit' : 'read';
    };
    assert.equal(await teamSpaceRole(), null);
    for (let round = 0; round < 3; round++) {
      assert.equal((await admin.put(`/v1/orgs/${ORG}/teams/${team}/members/${MEMBER}`, { role: 'member' })).status, 204);
      assert.equal(await teamSpaceRole(), 'edit', 'right after joining the team');
      assert.equal((await admin.delete(`/v1/orgs/${ORG}/teams/${team}/members/${MEMBER}`)).status, 204);
      assert.equal(await teamSpaceRole(), null, 'right after leaving the team');
      assert.equal((await admin.put(`/v1/orgs/${ORG}/teams/${team}/members`, { add: [MEMBER] })).status, 204);
      assert.equal(await teamSpaceRole(), 'edit', 'right after being added with others');
      assert.equal((await admin.put(`/v1/orgs/${ORG}/teams/${team}/members`, { remove: [MEMBER] })).status, 204);
      assert.equal(await teamSpaceRole(), null, 'right after being removed with others');
    }
    assert.equal((await admin.put(`/v1/orgs/${ORG}/teams/${team}/members/${MEMBER}`, { role: 'member' })).status, 204);
    assert.equal(await teamSpaceRole(), 'edit');
    assert.equal((await admin.delete(`/v1/orgs/${ORG}/teams/${team}`)).status, 204);
    assert.equal(await teamSpaceRole(), null, 'right after the team was deleted');
  });

  it('sees a removal in the very next request, and a revoked token is refused at once', async () => {
    await setRole('edit');
    assert.deepEqual(await standing(), { space: 'edit', sites: true });
    assert.equal((await admin.delete(`/v1/orgs/${ORG}/members/${MEMBER}`)).status, 204);
    assert.deepEqual(await standing(), { space: null, sites: false });

    // Back in, then the token is revoked while the gateway holds it in memory.
    await withIdentityAdmin(config, (ctx) => addMemberWithToken(ctx, { organizationId: ORG, email: 'editor@path.test', role: 'edit' }));
    assert.deepEqual(await standing(), { space: 'edit', sites: true }, 'the operator CLI announces memberships too');
    identityCalls.clear();
    assert.equal((await member.get(`/v1/spaces/${SPACE}`)).status, 200);
    assert.equal(calls('gateway ResolveToken'), 0, 'the token is served from memory');
    const tokens = await withIdentityAdmin(config, (ctx) => ctx.models.ApiToken.find({ userId: MEMBER, label: 'cli' }, { _id: 1, hash: 1 }).lean());
    const revoked = tokens.find((token) => token.hash === hashSecret(memberToken))!;
    await withIdentityAdmin(config, (ctx) => revokeToken(ctx, revoked._id));
    assert.equal((await member.get(`/v1/spaces/${SPACE}`)).status, 401);
  });
});
