import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { content, identity } from '@quire/proto';
import {
  ClientError,
  createGrpcClient,
  createGrpcServer,
  createLogger,
  grpcStatus,
  GrpcError,
  PRINCIPAL_HEADER,
  roleToProto,
  SIGNATURE_HEADER,
  signPrincipal,
  type BackendConfig,
  type GrpcServerHandle,
  type Role,
} from '@quire/runtime';
import { apiClient, assertMatchesOpenApi, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { modelsOf } from '../db/models';
import { startContent } from '../service';

/**
 * The content service alone (REST + its gRPC server) on the real datastore. Identity is
 * another service: here a small gRPC stand-in answers its membership questions from a
 * fixture, so the counts and lists can be checked against known memberships.
 */
const ORG = 'org-one';
const OTHER_ORG = 'org-two';
const TEAM = 'team-writers';
const members: Record<string, { role: Role | null; teamIds: string[] }> = {
  [`${ORG}/ada`]: { role: 'admin', teamIds: [] },
  [`${ORG}/mia`]: { role: 'read', teamIds: [TEAM] },
  [`${ORG}/gus`]: { role: null, teamIds: [] },
  [`${OTHER_ORG}/ada`]: { role: 'admin', teamIds: [] },
};

/** identity calls content made, by method: to check they are batched and cached per request. */
const identityCalls = new Map<string, number>();
const counted = (method: string) => identityCalls.set(method, (identityCalls.get(method) ?? 0) + 1);

function membership(organizationId: string, userId: string): identity.Membership {
  const found = members[`${organizationId}/${userId}`];
  return identity.Membership.fromPartial({ organizationId, userId, member: Boolean(found), role: roleToProto(found?.role), teamIds: found?.teamIds ?? [] });
}

function fakeIdentity(secret: string): GrpcServerHandle {
  const server = createGrpcServer({ host: '127.0.0.1', port: 0, secret, logger: createLogger('fake-identity', 'silent') });
  const unimplemented = async (): Promise<never> => {
    throw new GrpcError(grpcStatus.UNIMPLEMENTED, 'not in this test');
  };
  server.add(identity.IdentityServiceDefinition, {
    resolveToken: unimplemented,
    batchGetOrganizations: unimplemented,
    listMembers: unimplemented,
    async batchGetUsers(request) {
      return { users: request.ids.map((id) => identity.User.fromPartial({ id, displayName: id, email: `${id}@example.test` })) };
    },
    async getMembership(request) {
      counted('getMembership');
      return { membership: membership(request.organizationId, request.userId) };
    },
    async batchGetMemberships(request) {
      counted('batchGetMemberships');
      return { memberships: request.organizationIds.map((o) => membership(o, request.userId)).filter((m) => m.member) };
    },
  });
  return server;
}

describe('content service: gRPC and trash rules (real datastore)', () => {
  let env: TestEnvironment;
  let config: BackendConfig;
  let identityServer: GrpcServerHandle;
  let service: Awaited<ReturnType<typeof startContent>>;
  let grpc: content.ContentServiceClient<{ deadline?: number; retry?: boolean }>;
  const spaces: Record<string, string> = {};
  let collectionId: string;

  const as = (userId: string) => {
    const { value, signature } = signPrincipal(config.INTERNAL_HMAC_SECRET, { userId, tokenId: 't' });
    return { [PRINCIPAL_HEADER]: value, [SIGNATURE_HEADER]: signature };
  };
  const call = async (userId: string, method: string, path: string, body?: unknown) =>
    apiClient(`http://127.0.0.1:${service.httpPort}`).request(method, path, { headers: as(userId), body });
  const createSpace = async (name: string, body: Record<string, unknown> = {}) => {
    const created = await call('ada', 'POST', `/v1/orgs/${ORG}/spaces`, { title: name, ...body });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    spaces[name] = created.body.id;
  };

  before(async () => {
    env = await testEnvironment();
    const secret = testBackendConfig(env).INTERNAL_HMAC_SECRET;
    identityServer = fakeIdentity(secret);
    const identityPort = await identityServer.listen();
    config = testBackendConfig(env, { IDENTITY_GRPC_ADDR: `127.0.0.1:${identityPort}` });
    service = await startContent(config, { handleSignals: false });
    grpc = createGrpcClient(content.ContentServiceDefinition, { address: `127.0.0.1:${service.grpcPort}`, secret, caller: 'test', deadlineMs: 5_000 });

    // open: every member; team: guest level, granted to the team; inside: in a guest-level collection granted to gus.
    await createSpace('open');
    await createSpace('team');
    await call('ada', 'PATCH', `/v1/spaces/${spaces.team}`, { defaultLevel: null });
    await call('ada', 'POST', `/v1/spaces/${spaces.team}/permissions`, { role: 'edit', teams: [TEAM] });
    const collection = await call('ada', 'POST', `/v1/orgs/${ORG}/collections`, { title: 'Private' });
    collectionId = collection.body.id;
    await call('ada', 'PATCH', `/v1/collections/${collectionId}`, { defaultLevel: null });
    await call('ada', 'POST', `/v1/collections/${collectionId}/permissions`, { role: 'comment', users: ['gus'] });
    await createSpace('inside', { parent: collectionId });
    await createSpace('trashed');
    assert.equal((await call('ada', 'DELETE', `/v1/spaces/${spaces.trashed}`)).status, 204);
  });

  after(async () => {
    await service?.stop();
    await identityServer?.shutdown();
    await cleanupTestEnvironment(env);
  });

  it('ListMemberSpaces: what a member can access, with their role, keyset paged with the total', async () => {
    const first = await grpc.listMemberSpaces({ organizationId: ORG, userId: 'mia', orgRole: 'read', teamIds: [TEAM], pageSize: 1, order: 'asc' });
    assert.equal(first.totalSize, 2);
    assert.equal(first.items.length, 1);
    assert.ok(first.nextPageToken);
    const second = await grpc.listMemberSpaces({ organizationId: ORG, userId: 'mia', orgRole: 'read', teamIds: [TEAM], pageSize: 1, order: 'asc', pageToken: first.nextPageToken });
    assert.equal(second.nextPageToken, '');
    const items = [...first.items, ...second.items];
    assert.deepEqual(items.map((i) => [i.space?.id, i.role]), [[spaces.open, 'read'], [spaces.team, 'edit']]);
    assertMatchesOpenApi('Space', JSON.parse(items[1].space!.restJson));

    const guest = await grpc.listMemberSpaces({ organizationId: ORG, userId: 'gus', orgRole: '', teamIds: [] });
    assert.deepEqual(guest.items.map((i) => [i.space?.id, i.role]), [[spaces.inside, 'comment']]);
    const withoutTeam = await grpc.listMemberSpaces({ organizationId: ORG, userId: 'mia', orgRole: 'read', teamIds: [] });
    assert.equal(withoutTeam.totalSize, 1);
    await assert.rejects(
      grpc.listMemberSpaces({ organizationId: ORG, userId: 'mia', orgRole: 'boss' }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
    await assert.rejects(
      grpc.listMemberSpaces({ organizationId: ORG, userId: 'mia', pageToken: 'garbage' }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('BatchCountSpaces: members and teams of several organizations in one call', async () => {
    const { counts } = await grpc.batchCountSpaces({
      subjects: [
        { organizationId: ORG, userId: 'ada', orgRole: 'admin', teamIds: [], teamId: '' },
        { organizationId: ORG, userId: 'mia', orgRole: 'read', teamIds: [TEAM], teamId: '' },
        { organizationId: ORG, userId: 'gus', orgRole: '', teamIds: [], teamId: '' },
        { organizationId: ORG, teamId: TEAM, userId: '', orgRole: '', teamIds: [] },
        { organizationId: ORG, teamId: 'team-nobody', userId: '', orgRole: '', teamIds: [] },
        { organizationId: OTHER_ORG, userId: 'ada', orgRole: 'admin', teamIds: [], teamId: '' },
      ],
    });
    assert.deepEqual(counts, [3, 2, 1, 1, 0, 0]);
    await assert.rejects(
      grpc.batchCountSpaces({ subjects: [{ organizationId: ORG, userId: 'mia', teamId: TEAM, orgRole: '', teamIds: [] }] }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('BatchGetSpaces: in request order, trashed ones on request, presented for the viewer', async () => {
    const ids = [spaces.inside, 'unknown-space', spaces.open, spaces.trashed];
    const plain = await grpc.batchGetSpaces({ ids });
    assert.deepEqual(plain.spaces.map((s) => s.id), [spaces.inside, spaces.open]);
    assert.equal(plain.spaces[0].parentId, collectionId);
    const withTrash = await grpc.batchGetSpaces({ ids, includeDeleted: true });
    assert.deepEqual(withTrash.spaces.map((s) => s.id), [spaces.inside, spaces.open, spaces.trashed]);
    assert.ok(withTrash.spaces[2].deleteTime);

    const forMia = await grpc.batchGetSpaces({ ids, viewerUserId: 'mia' });
    assert.deepEqual(forMia.spaces.map((s) => s.viewerRole), ['', 'read']);
    const open = JSON.parse(forMia.spaces[1].restJson);
    assertMatchesOpenApi('Space', open);
    assert.equal(open.permissions.view, true);
    assert.equal(open.permissions.edit, false);
    const inside = JSON.parse(forMia.spaces[0].restJson);
    assert.ok(Object.values(inside.permissions).every((v) => v === false), 'no role, no permission');
    const forOutsider = await grpc.batchGetSpaces({ ids: [spaces.open], viewerUserId: 'eve' });
    assert.equal(forOutsider.spaces[0].viewerRole, '');
  });

  it('asks identity for the caller\'s membership once per request, and batches viewers', async () => {
    identityCalls.clear();
    const patched = await call('ada', 'PATCH', `/v1/spaces/${spaces.inside}`, { title: 'Inside v2' });
    assert.equal(patched.status, 200);
    assert.equal(identityCalls.get('getMembership'), 1);
    identityCalls.clear();
    assert.equal((await call('mia', 'GET', `/v1/orgs/${ORG}/spaces`)).status, 200);
    assert.equal(identityCalls.get('getMembership'), 1);
    identityCalls.clear();
    await grpc.batchGetSpaces({ ids: Object.values(spaces), includeDeleted: true, viewerUserId: 'mia' });
    assert.deepEqual(Object.fromEntries(identityCalls), { batchGetMemberships: 1 });
  });

  it('refuses to restore a space deleted longer ago than the retention (403), restores a recent one', async () => {
    const models = modelsOf(service.deps.db);
    await createSpace('old');
    assert.equal((await call('ada', 'DELETE', `/v1/spaces/${spaces.old}`)).status, 204);
    await models.Space.updateOne({ _id: spaces.old }, { $set: { deletedAt: new Date(Date.now() - 8 * 24 * 3600 * 1000) } });
    const refused = await call('ada', 'POST', `/v1/spaces/${spaces.old}/restore`);
    assert.equal(refused.status, 403);
    assert.match(refused.body.error.message, /more than 7 days/);
    const restored = await call('ada', 'POST', `/v1/spaces/${spaces.trashed}/restore`);
    assert.equal(restored.status, 200);
    assert.equal((await call('mia', 'GET', `/v1/spaces/${spaces.trashed}`)).status, 200);
  });
});
