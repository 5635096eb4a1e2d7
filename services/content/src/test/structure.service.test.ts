import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import pino from 'pino';
import { createEventBus } from '@quire/async';
import { freePort } from '@quire/datastore';
import { addMemberWithToken, bootstrapAdmin, startIdentity, withIdentityAdmin } from '@quire/identity';
import { content } from '@quire/proto';
import {
  ClientError,
  createGrpcClient,
  createLogger,
  grpcStatus,
  membershipCacheOf,
  PRINCIPAL_HEADER,
  SIGNATURE_HEADER,
  signPrincipal,
  type BackendConfig,
} from '@quire/runtime';
import { apiClient, assertMatchesOpenApi, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment, expectEvery } from '@quire/testkit';
import type { ContentContext } from '../kernel';
import { purgeSpace, startContent } from '../service';

/**
 * The content service (REST + its gRPC server) with the real identity service beside it,
 * both on the real datastore: memberships, roles and the team are identity's own, made
 * the way operators and the API make them, so the counts and lists are checked against
 * what identity really answers.
 */

/**
 * identity calls content made, by method: to check they are batched and cached per request.
 * Read from identity's own gRPC call log (one debug line per call served, naming the caller).
 * Content also caches memberships across requests: `coldCalls` empties that cache first, so
 * that what a request asks identity shows.
 */
const identityCalls = new Map<string, number>();
const identityLogger = pino(
  { level: 'debug', base: { service: 'identity' } },
  {
    write(line: string) {
      const entry = JSON.parse(line) as { msg?: string; caller?: string; method?: string };
      if (entry.msg !== 'grpc call' || entry.caller !== 'content' || !entry.method) return;
      const method = entry.method.slice(entry.method.lastIndexOf('/') + 1);
      identityCalls.set(method, (identityCalls.get(method) ?? 0) + 1);
    },
  },
);

describe('content service: gRPC and trash rules (real datastore, real identity)', () => {
  let env: TestEnvironment;
  let config: BackendConfig;
  let identityService: Awaited<ReturnType<typeof startIdentity>>;
  let service: Awaited<ReturnType<typeof startContent>>;
  let grpc: content.ContentServiceClient<{ deadline?: number; retry?: boolean }>;
  const spaces: Record<string, string> = {};
  let collectionId: string;
  /** ada: admin of ORG and of OTHER_ORG; mia: reader in TEAM; gus: guest. */
  const users: Record<'ada' | 'mia' | 'gus', string> = { ada: '', mia: '', gus: '' };
  let ORG: string;
  let OTHER_ORG: string;
  let TEAM: string;

  const as = (userId: string) => {
    const { value, signature } = signPrincipal(config.INTERNAL_HMAC_SECRET, { userId, tokenId: 't' });
    return { [PRINCIPAL_HEADER]: value, [SIGNATURE_HEADER]: signature };
  };
  const call = async (user: keyof typeof users, method: string, path: string, body?: unknown) =>
    apiClient(`http://127.0.0.1:${service.httpPort}`).request(method, path, { headers: as(users[user]), body });
  const createSpace = async (name: string, body: Record<string, unknown> = {}) => {
    const created = await call('ada', 'POST', `/v1/orgs/${ORG}/spaces`, { title: name, ...body });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    spaces[name] = created.body.id;
  };

  /** A team made through identity's REST API, by ada. */
  const createTeam = async (title: string, members: string[]) => {
    const team = await apiClient(`http://127.0.0.1:${identityService.httpPort}`).request('PUT', `/v1/orgs/${ORG}/teams`, {
      headers: as(users.ada),
      body: { title, members },
    });
    assert.equal(team.status, 201, JSON.stringify(team.body));
    return team.body as { id: string; createdAt: string };
  };

  beforeAll(async () => {
    env = await testEnvironment();
    // Each service calls the other (identity asks content for team space counts), so
    // content's gRPC port is chosen before either starts.
    const contentGrpcPort = await freePort();
    const identityConfig = testBackendConfig(env, { CONTENT_GRPC_ADDR: `127.0.0.1:${contentGrpcPort}` });
    identityService = await startIdentity(identityConfig, { handleSignals: false, logger: identityLogger });
    config = testBackendConfig(env, { GRPC_PORT: contentGrpcPort, IDENTITY_GRPC_ADDR: `127.0.0.1:${identityService.grpcPort}` });
    service = await startContent(config, { handleSignals: false });
    grpc = createGrpcClient(content.ContentServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: config.INTERNAL_HMAC_SECRET,
      caller: 'test',
      deadlineMs: 5_000,
    });

    await withIdentityAdmin(identityConfig, async (ctx) => {
      const ada = await bootstrapAdmin(ctx, { email: 'ada@one.test', organizationTitle: 'One' });
      [users.ada, ORG] = [ada.userId, ada.organizationId];
      OTHER_ORG = (await bootstrapAdmin(ctx, { email: 'ada@one.test', organizationTitle: 'Two' })).organizationId;
      users.mia = (await addMemberWithToken(ctx, { organizationId: ORG, email: 'mia@one.test', role: 'read' })).userId;
      users.gus = (await addMemberWithToken(ctx, { organizationId: ORG, email: 'gus@elsewhere.test', role: null })).userId;
    });
    TEAM = (await createTeam('Writers', [users.mia])).id;

    // open: every member; team: guest level, granted to the team; inside: in a guest-level collection granted to gus.
    await createSpace('open');
    await createSpace('team');
    await call('ada', 'PATCH', `/v1/spaces/${spaces.team}`, { defaultLevel: null });
    await call('ada', 'POST', `/v1/spaces/${spaces.team}/permissions`, { role: 'edit', teams: [TEAM] });
    const collection = await call('ada', 'POST', `/v1/orgs/${ORG}/collections`, { title: 'Private' });
    collectionId = collection.body.id;
    await call('ada', 'PATCH', `/v1/collections/${collectionId}`, { defaultLevel: null });
    assert.equal((await call('ada', 'POST', `/v1/collections/${collectionId}/permissions`, { role: 'comment', users: [users.gus] })).status, 204);
    await createSpace('inside', { parent: collectionId });
    await createSpace('trashed');
    assert.equal((await call('ada', 'DELETE', `/v1/spaces/${spaces.trashed}`)).status, 204);
  });

  afterAll(async () => {
    await service?.stop();
    await identityService?.stop();
    await cleanupTestEnvironment(env);
  });

  it('ListMemberSpaces: what a member can access, with their role, keyset paged with the total', async () => {
    const first = await grpc.listMemberSpaces({ organizationId: ORG, userId: users.mia, orgRole: 'read', teamIds: [TEAM], pageSize: 1, order: 'asc' });
    assert.equal(first.totalSize, 2);
    assert.equal(first.items.length, 1);
    assert.ok(first.nextPageToken);
    const second = await grpc.listMemberSpaces({
      organizationId: ORG,
      userId: users.mia,
      orgRole: 'read',
      teamIds: [TEAM],
      pageSize: 1,
      order: 'asc',
      pageToken: first.nextPageToken,
    });
    assert.equal(second.nextPageToken, '');
    const items = [...first.items, ...second.items];
    assert.deepEqual(
      items.map((i) => [i.space?.id, i.role]),
      [
        [spaces.open, 'read'],
        [spaces.team, 'edit'],
      ],
    );
    assertMatchesOpenApi('Space', JSON.parse(items[1].space!.restJson));

    const guest = await grpc.listMemberSpaces({ organizationId: ORG, userId: users.gus, orgRole: '', teamIds: [] });
    assert.deepEqual(
      guest.items.map((i) => [i.space?.id, i.role]),
      [[spaces.inside, 'comment']],
    );
    const withoutTeam = await grpc.listMemberSpaces({ organizationId: ORG, userId: users.mia, orgRole: 'read', teamIds: [] });
    assert.equal(withoutTeam.totalSize, 1);
    await assert.rejects(
      grpc.listMemberSpaces({ organizationId: ORG, userId: users.mia, orgRole: 'boss' }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
    await assert.rejects(
      grpc.listMemberSpaces({ organizationId: ORG, userId: users.mia, pageToken: 'garbage' }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('BatchCountSpaces: members and teams of several organizations in one call', async () => {
    const { counts } = await grpc.batchCountSpaces({
      subjects: [
        { organizationId: ORG, userId: users.ada, orgRole: 'admin', teamIds: [], teamId: '' },
        { organizationId: ORG, userId: users.mia, orgRole: 'read', teamIds: [TEAM], teamId: '' },
        { organizationId: ORG, userId: users.gus, orgRole: '', teamIds: [], teamId: '' },
        { organizationId: ORG, teamId: TEAM, userId: '', orgRole: '', teamIds: [] },
        { organizationId: ORG, teamId: 'team-nobody', userId: '', orgRole: '', teamIds: [] },
        { organizationId: OTHER_ORG, userId: users.ada, orgRole: 'admin', teamIds: [], teamId: '' },
      ],
    });
    assert.deepEqual(counts, [3, 2, 1, 1, 0, 0]);
    await assert.rejects(
      grpc.batchCountSpaces({ subjects: [{ organizationId: ORG, userId: users.mia, teamId: TEAM, orgRole: '', teamIds: [] }] }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('BatchGetSpaces: in request order, trashed ones on request, presented for the viewer', async () => {
    const ids = [spaces.inside, 'unknown-space', spaces.open, spaces.trashed];
    const plain = await grpc.batchGetSpaces({ ids });
    assert.deepEqual(
      plain.spaces.map((s) => s.id),
      [spaces.inside, spaces.open],
    );
    assert.equal(plain.spaces[0].parentId, collectionId);
    const withTrash = await grpc.batchGetSpaces({ ids, includeDeleted: true });
    assert.deepEqual(
      withTrash.spaces.map((s) => s.id),
      [spaces.inside, spaces.open, spaces.trashed],
    );
    assert.ok(withTrash.spaces[2].deleteTime);

    const forMia = await grpc.batchGetSpaces({ ids, viewerUserId: users.mia });
    assert.deepEqual(
      forMia.spaces.map((s) => s.viewerRole),
      ['', 'read'],
    );
    const open = JSON.parse(forMia.spaces[1].restJson);
    assertMatchesOpenApi('Space', open);
    assert.equal(open.permissions.view, true);
    assert.equal(open.permissions.edit, false);
    const inside = JSON.parse(forMia.spaces[0].restJson);
    expectEvery(Object.values(inside.permissions), (v) => v === false, 'no role, no permission');
    const forOutsider = await grpc.batchGetSpaces({ ids: [spaces.open], viewerUserId: 'eve' });
    assert.equal(forOutsider.spaces[0].viewerRole, '');
  });

  const coldCalls = () => {
    membershipCacheOf(service.context.redis).clear();
    identityCalls.clear();
  };

  it("asks identity for the caller's membership once per request, and batches viewers", async () => {
    coldCalls();
    const patched = await call('ada', 'PATCH', `/v1/spaces/${spaces.inside}`, { title: 'Inside v2' });
    assert.equal(patched.status, 200);
    assert.equal(identityCalls.get('GetMembership'), 1);
    coldCalls();
    assert.equal((await call('mia', 'GET', `/v1/orgs/${ORG}/spaces`)).status, 200);
    assert.equal(identityCalls.get('GetMembership'), 1);
    coldCalls();
    await grpc.batchGetSpaces({ ids: Object.values(spaces), includeDeleted: true, viewerUserId: users.mia });
    assert.deepEqual(Object.fromEntries(identityCalls), { BatchGetMemberships: 1 });
  });

  it('refuses to restore a space deleted longer ago than the retention (403), restores a recent one', async () => {
    const models = service.context.models;
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

  it("lists team permissions with identity's teams (one BatchGetTeams per response) and their space counts", async () => {
    const reviewers = await createTeam('Reviewers', []);
    await call('ada', 'POST', `/v1/spaces/${spaces.team}/permissions`, { role: 'read', teams: [reviewers.id] });
    await call('ada', 'POST', `/v1/collections/${collectionId}/permissions`, { role: 'read', teams: [reviewers.id] });
    coldCalls();
    const listed = await call('ada', 'GET', `/v1/spaces/${spaces.team}/permissions/teams`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(Object.fromEntries(identityCalls), { GetMembership: 1, BatchGetTeams: 1 });
    assert.equal(listed.body.count, 2);
    for (const item of listed.body.items) assertMatchesOpenApi('OrganizationTeam', item.team);
    assert.deepEqual(
      listed.body.items.map((i: { permission: string; team: Record<string, unknown> }) => [
        i.permission,
        i.team.id,
        i.team.title,
        i.team.members,
        i.team.spaces,
      ]),
      [
        ['edit', TEAM, 'Writers', 1, 1],
        // Its collection grant reaches the space inside it too.
        ['read', reviewers.id, 'Reviewers', 0, 2],
      ],
    );
    assert.equal(listed.body.items[1].team.createdAt, reviewers.createdAt);

    const inCollection = await call('ada', 'GET', `/v1/collections/${collectionId}/permissions/teams`);
    assert.deepEqual(
      inCollection.body.items.map((i: { team: Record<string, unknown> }) => [i.team.title, i.team.spaces]),
      [['Reviewers', 2]],
    );
  });
  it('stores page bodies by content: a batch changing one page of many writes that one body; revisions never change', async () => {
    const models = service.context.models;
    await createSpace('bodies');
    const cr = await call('ada', 'POST', `/v1/spaces/${spaces.bodies}/change-requests`, { subject: 'Bodies' });
    const crPath = `/v1/spaces/${spaces.bodies}/change-requests/${cr.body.id}`;
    const changes = Array.from({ length: 20 }, (_, i) => ({ type: 'insert_page', title: `Page ${i}`, markdown: `Body ${i}` }));
    const seeded = await call('ada', 'POST', `${crPath}/content?compat=false`, { changes });
    assert.equal(seeded.status, 200, JSON.stringify(seeded.body));
    const firstRevision = seeded.body.changeRequest.revision;
    const pageId = seeded.body.changes[3].page.id;
    const packsBefore = await models.BodyPack.find({}, { _id: 1 }).lean();
    const edited = await call('ada', 'POST', `${crPath}/content`, { changes: [{ type: 'update_page', page: pageId, markdown: 'Body 3, edited' }] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const known = new Set(packsBefore.map((pack) => pack._id));
    const newPacks = (await models.BodyPack.find({}, { _id: 1, count: 1 }).lean()).filter((pack) => !known.has(pack._id));
    assert.deepEqual(
      newPacks.map((pack) => pack.count),
      [1],
      'only the changed body is stored',
    );
    // The earlier revision still reads as it was written.
    const old = await call('mia', 'GET', `/v1/spaces/${spaces.bodies}/revisions/${firstRevision}/page/${pageId}`);
    assert.equal(old.body.markdown, 'Body 3');
    const now = await call('mia', 'GET', `${crPath}/content/page/${pageId}`);
    assert.equal(now.body.markdown, 'Body 3, edited');
  });

  it('lists change requests with one GetMembership and one BatchGetUsers per response', async () => {
    await createSpace('listed');
    for (const user of ['ada', 'mia'] as const) {
      // Through mia's team: granting a user asks identity for Member views, whose counts need
      // the publishing service, which this test does not run.
      if (user === 'mia') assert.equal((await call('ada', 'POST', `/v1/spaces/${spaces.listed}/permissions`, { role: 'edit', teams: [TEAM] })).status, 204);
      for (let i = 0; i < 3; i++)
        assert.equal((await call(user, 'POST', `/v1/spaces/${spaces.listed}/change-requests`, { subject: `${user} ${i}` })).status, 201);
    }
    coldCalls();
    const listed = await call('mia', 'GET', `/v1/spaces/${spaces.listed}/change-requests`);
    assert.equal(listed.body.count, 6);
    assert.deepEqual(Object.fromEntries(identityCalls), { GetMembership: 1, BatchGetUsers: 1 });
    coldCalls();
    const inOrg = await call('mia', 'GET', `/v1/orgs/${ORG}/change-requests?space=${spaces.listed}`);
    assert.equal(inOrg.body.count, 6);
    assert.deepEqual(Object.fromEntries(identityCalls), { GetMembership: 1, BatchGetUsers: 1 });
  });

  it('purges a trashed space for good once its retention is over: space, revisions, change requests, links', async () => {
    const models = service.context.models;
    await createSpace('purged');
    const id = spaces.purged;
    const cr = await call('ada', 'POST', `/v1/spaces/${id}/change-requests`, { subject: 'Doomed' });
    await call('ada', 'POST', `/v1/spaces/${id}/change-requests/${cr.body.id}/content`, {
      changes: [{ type: 'insert_page', title: 'P', markdown: '[x](y.md)' }],
    });
    assert.equal((await call('ada', 'POST', `/v1/spaces/${id}/change-requests/${cr.body.id}/merge`)).status, 200);
    assert.equal((await call('ada', 'GET', `/v1/spaces/${id}/links`)).status, 200);
    assert.equal((await call('ada', 'DELETE', `/v1/spaces/${id}`)).status, 204);
    const events = createEventBus({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX, logger: createLogger('test', 'silent') });
    const ctx = { models, caches: service.context.caches, redis: service.deps.redis, config, logger: service.deps.logger, events } as unknown as ContentContext;
    try {
      assert.equal(await purgeSpace(ctx, id), false, 'not before the retention is over');
      assert.ok(await models.Space.exists({ _id: id }));
      await models.Space.updateOne({ _id: id }, { $set: { deletedAt: new Date(Date.now() - 8 * 24 * 3600 * 1000) } });
      assert.equal(await purgeSpace(ctx, id), true);
      assert.equal(await purgeSpace(ctx, id), false, 'idempotent');
    } finally {
      await events.close();
    }
    const left = await Promise.all([
      models.Space.countDocuments({ _id: id }),
      models.Revision.countDocuments({ spaceId: id }),
      models.ChangeRequest.countDocuments({ spaceId: id }),
      models.RevisionLinks.countDocuments({ spaceId: id }),
      models.Grant.countDocuments({ resourceId: id }),
    ]);
    assert.deepEqual(left, [0, 0, 0, 0, 0]);
    assert.equal((await call('ada', 'POST', `/v1/spaces/${id}/restore`)).status, 404);
  });

  // Last: it stops identity. Every identity call content makes on a request path goes through
  // fromService, so identity down is a 503 naming it, never a 500.
  it('answers 503 when identity is down: team permissions, change request lists and merges (issue 17 item 4)', async () => {
    await createSpace('outage');
    const cr = (await call('ada', 'POST', `/v1/spaces/${spaces.outage}/change-requests`, { subject: 'During the outage' })).body.id as string;
    const requests: Array<[string, string]> = [
      ['GET', `/v1/spaces/${spaces.team}/permissions/teams`], // BatchGetTeams for the team views
      ['GET', `/v1/spaces/${spaces.outage}/change-requests`], // BatchGetUsers for createdBy
      ['POST', `/v1/spaces/${spaces.outage}/change-requests/${cr}/merge`], // BatchGetOrganizations for inherited merge rules
    ];
    // Each works while identity runs (and ada's membership is now in content's cache).
    for (const [method, path] of requests.slice(0, 2)) assert.equal((await call('ada', method, path)).status, 200, `${method} ${path}`);
    await identityService.stop();
    identityService = undefined as never;
    for (const [method, path] of requests) {
      const answer = await call('ada', method, path);
      assert.equal(answer.status, 503, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.error.message, /Identity service unavailable/);
    }
  });
});
