import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { identity } from '@quire/proto';
import { HttpError } from '@quire/http';
import { ClientError, createGrpcClient, createServiceClients, grpcStatus, signPrincipal, type BackendConfig, type ServiceClients } from '@quire/runtime';
import { apiClient, assertMatchesOpenApi, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { addMemberWithToken, bootstrapAdmin } from '../admin';
import type { IdentityContext } from '../domain/context';
import { viewsOf } from '../domain/members';
import { updateOrganization } from '../domain/organizations';
import { identityGrpc } from '../grpc/server';
import { issueToken, revokeToken, scopeLegacySsoTokens } from '../domain/tokens';
import { startIdentity } from '../service';

describe('identity service (REST + gRPC, real datastore)', () => {
  let env: TestEnvironment;
  let config: BackendConfig;
  let service: Awaited<ReturnType<typeof startIdentity>>;
  let ctx: IdentityContext;
  let grpc: identity.IdentityServiceClient<{ deadline?: number; retry?: boolean }>;
  let admin: { userId: string; organizationId: string; token: string };
  let reader: { userId: string; token: string };

  const as = (userId: string) => {
    const { value, signature } = signPrincipal(config.INTERNAL_HMAC_SECRET, { userId, tokenId: 't' });
    return { 'x-quire-principal': value, 'x-quire-signature': signature };
  };
  const http = () => apiClient(`http://127.0.0.1:${service.httpPort}`);

  beforeAll(async () => {
    env = await testEnvironment();
    config = testBackendConfig(env);
    service = await startIdentity(config, { handleSignals: false });
    ctx = service.context;
    admin = await bootstrapAdmin(ctx, { email: 'Admin@Example.com', organizationTitle: 'Acme Docs' });
    reader = await addMemberWithToken(ctx, { organizationId: admin.organizationId, email: 'reader@example.com', role: 'read' });
    grpc = createGrpcClient(identity.IdentityServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: config.INTERNAL_HMAC_SECRET,
      caller: 'test',
      deadlineMs: 5_000,
    });
  });

  afterAll(async () => {
    await service.stop();
    await cleanupTestEnvironment(env);
  });

  it('answers REST only with a principal the gateway signed', async () => {
    const unsigned = await http().request('GET', '/v1/user', { headers: { 'x-quire-principal': 'eyJ1c2VySWQiOiJ4In0', 'x-quire-signature': 'forged' } });
    assert.equal(unsigned.status, 401);
    assert.deepEqual(Object.keys(unsigned.body), ['error']);
    assert.equal(unsigned.body.error.code, 401);
    const signed = await http().request('GET', '/v1/user', { headers: as(admin.userId) });
    assert.equal(signed.status, 200);
    assert.equal(signed.body.email, 'admin@example.com');
  });

  it('resolves live tokens over gRPC and forgets revoked ones', async () => {
    const resolved = await grpc.resolveToken({ token: admin.token });
    assert.equal(resolved.user?.id, admin.userId);
    assert.equal(resolved.organizationId, '', 'a CLI token is valid in all of the user’s organizations');
    const scoped = await issueToken(ctx, admin.userId, 'sso:test', admin.organizationId);
    assert.deepEqual(await grpc.resolveToken({ token: scoped.token }), { ...resolved, tokenId: scoped.id, organizationId: admin.organizationId });
    await assert.rejects(grpc.resolveToken({ token: 'qr_unknown' }), (e: ClientError) => e.code === grpcStatus.NOT_FOUND);
    const extra = await addMemberWithToken(ctx, { organizationId: admin.organizationId, email: 'temp@example.com', role: 'edit' });
    const { tokenId } = await grpc.resolveToken({ token: extra.token });
    assert.equal(await revokeToken(ctx, tokenId), true);
    assert.equal(await revokeToken(ctx, tokenId), false, 'revoking twice is harmless');
    await assert.rejects(grpc.resolveToken({ token: extra.token }), (e: ClientError) => e.code === grpcStatus.NOT_FOUND);
  });

  it('scopes SSO tokens issued before scopes existed to their provider’s organization, revoking orphans', async () => {
    const provider = await ctx.models.SamlProvider.create({
      _id: 'legacy-idp',
      organizationId: admin.organizationId,
      label: 'Old IdP',
      defaultRole: null,
      createdAt: new Date(),
    });
    const legacy = await issueToken(ctx, reader.userId, `sso:${provider._id}`);
    // Written before the field existed: no organizationId at all.
    await ctx.models.ApiToken.collection.updateOne({ _id: legacy.id as never }, { $unset: { organizationId: '' } });
    assert.equal('organizationId' in ((await ctx.models.ApiToken.collection.findOne({ _id: legacy.id as never })) ?? {}), false);
    const orphan = await issueToken(ctx, reader.userId, 'sso:deleted-idp');
    const cli = await issueToken(ctx, reader.userId, 'cli');
    assert.equal((await grpc.resolveToken({ token: legacy.token })).organizationId, '', 'unscoped before the migration');

    assert.equal(await scopeLegacySsoTokens(ctx), 2);
    assert.equal((await grpc.resolveToken({ token: legacy.token })).organizationId, admin.organizationId);
    await assert.rejects(grpc.resolveToken({ token: orphan.token }), (e: ClientError) => e.code === grpcStatus.NOT_FOUND);
    assert.equal((await grpc.resolveToken({ token: cli.token })).organizationId, '', 'other tokens are untouched');
    assert.equal(await scopeLegacySsoTokens(ctx), 0, 'nothing left to do');
  });

  it('stores only a hash of each token', async () => {
    const stored = await ctx.models.ApiToken.find({ userId: admin.userId }).lean();
    assert.ok(stored.length >= 1);
    for (const record of stored) {
      assert.notEqual(record.hash, admin.token);
      assert.ok(!JSON.stringify(record).includes(admin.token));
    }
  });

  it('returns users and organizations in one batched call, skipping unknown ids', async () => {
    const { users } = await grpc.batchGetUsers({ ids: [admin.userId, reader.userId, 'missing'] });
    assert.deepEqual(users.map((u) => u.id).sort(), [admin.userId, reader.userId].sort());
    const { organizations } = await grpc.batchGetOrganizations({ ids: [admin.organizationId, 'missing'] });
    assert.deepEqual(
      organizations.map((o) => o.title),
      ['Acme Docs'],
    );
    await assert.rejects(
      grpc.batchGetUsers({ ids: Array.from({ length: 1001 }, (_, i) => `u${i}`) }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('tells membership and role of a user in an organization, and lists members', async () => {
    const { membership } = await grpc.getMembership({ organizationId: admin.organizationId, userId: reader.userId });
    assert.equal(membership?.member, true);
    assert.equal(membership?.role, identity.Role.ROLE_READ);
    const outsider = await grpc.getMembership({ organizationId: admin.organizationId, userId: 'nobody' });
    assert.equal(outsider.membership?.member, false);
    const batch = await grpc.batchGetMemberships({ userId: admin.userId, organizationIds: [admin.organizationId, 'other'] });
    assert.equal(batch.memberships.length, 1);
    assert.equal(batch.memberships[0].role, identity.Role.ROLE_ADMIN);

    const first = await grpc.listMembers({ organizationId: admin.organizationId, pageSize: 1 });
    assert.ok(first.totalSize >= 2);
    assert.equal(first.memberships.length, 1);
    const second = await grpc.listMembers({ organizationId: admin.organizationId, pageSize: 1, pageToken: first.nextPageToken });
    assert.notEqual(second.memberships[0].userId, first.memberships[0].userId);
    await assert.rejects(
      grpc.listMembers({ organizationId: admin.organizationId, pageToken: 'junk' }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('tells team ids with memberships and merge rules with organizations', async () => {
    const now = new Date();
    await ctx.models.Team.create({ _id: 'team-1', organizationId: admin.organizationId, title: 'Core', sortTitle: 'core', createdAt: now });
    await ctx.models.TeamMembership.create({
      _id: 'tm-1',
      organizationId: admin.organizationId,
      teamId: 'team-1',
      userId: reader.userId,
      role: 'member',
      createdAt: now,
    });
    const { membership } = await grpc.getMembership({ organizationId: admin.organizationId, userId: reader.userId });
    assert.deepEqual(membership?.teamIds, ['team-1']);
    const batch = await grpc.batchGetMemberships({ userId: reader.userId, organizationIds: [admin.organizationId] });
    assert.deepEqual(batch.memberships[0].teamIds, ['team-1']);
    const listed = await grpc.listMembers({ organizationId: admin.organizationId, pageSize: 100 });
    assert.deepEqual(listed.memberships.find((m) => m.userId === reader.userId)?.teamIds, ['team-1']);

    await ctx.models.Organization.updateOne(
      { _id: admin.organizationId },
      { $set: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [admin.userId] }] } } },
    );
    const [organization] = (await grpc.batchGetOrganizations({ ids: [admin.organizationId] })).organizations;
    assert.equal(organization.mergeRulesType, 'rules');
    assert.deepEqual(organization.mergeRules, [{ rule: 'require_specific_reviewers', users: [admin.userId] }]);
  });

  it('answers the default role (read) for an organization stored before it had one (null)', async () => {
    const legacy = await bootstrapAdmin(ctx, { email: 'legacy-admin@example.com', organizationTitle: 'Legacy Docs' });
    await ctx.models.Organization.collection.updateOne({ _id: legacy.organizationId as never }, { $set: { defaultRole: null } });
    const [organization] = (await grpc.batchGetOrganizations({ ids: [legacy.organizationId] })).organizations;
    assert.equal(organization.defaultRole, identity.Role.ROLE_READ);
    const presented = await http().request('GET', `/v1/orgs/${legacy.organizationId}`, { headers: as(legacy.userId) });
    assert.equal(presented.status, 200);
    assert.equal(presented.body.defaultRole, 'read');
  });

  it('returns teams of one organization with their member counts in one batched call', async () => {
    const now = new Date();
    const other = await bootstrapAdmin(ctx, { email: 'other-admin@example.com', organizationTitle: 'Other Docs' });
    await ctx.models.Team.create([
      { _id: 'team-a', organizationId: admin.organizationId, title: 'Writers', sortTitle: 'writers', createdAt: now },
      { _id: 'team-empty', organizationId: admin.organizationId, title: 'Empty', sortTitle: 'empty', createdAt: now },
      { _id: 'team-elsewhere', organizationId: other.organizationId, title: 'Theirs', sortTitle: 'theirs', createdAt: now },
    ]);
    await ctx.models.TeamMembership.create([
      { _id: 'tm-a1', organizationId: admin.organizationId, teamId: 'team-a', userId: admin.userId, role: 'owner', createdAt: now },
      { _id: 'tm-a2', organizationId: admin.organizationId, teamId: 'team-a', userId: reader.userId, role: 'member', createdAt: now },
      { _id: 'tm-x1', organizationId: other.organizationId, teamId: 'team-elsewhere', userId: other.userId, role: 'owner', createdAt: now },
    ]);

    const { teams } = await grpc.batchGetTeams({
      organizationId: admin.organizationId,
      ids: ['team-empty', 'missing', 'team-a', 'team-elsewhere', 'team-a'],
    });
    assert.deepEqual(
      teams.map((t) => [t.id, t.organizationId, t.title, t.memberCount]),
      [
        ['team-empty', admin.organizationId, 'Empty', 0],
        ['team-a', admin.organizationId, 'Writers', 2],
      ],
      'in request order, once each, without unknown ids or other organizations’ teams',
    );
    assert.equal(teams[1].createTime?.getTime(), now.getTime());
    assert.deepEqual((await grpc.batchGetTeams({ organizationId: admin.organizationId, ids: [] })).teams, []);
    await assert.rejects(grpc.batchGetTeams({ organizationId: '', ids: ['team-a'] }), (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT);
    await assert.rejects(
      grpc.batchGetTeams({ organizationId: admin.organizationId, ids: Array.from({ length: 1001 }, (_, i) => `t${i}`) }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('counts the sites members see with one publishing call per page, and fails as content does', async () => {
    const organizationId = admin.organizationId;
    const guest = await addMemberWithToken(ctx, { organizationId, email: 'guest@example.com', role: null });
    const disabled = await addMemberWithToken(ctx, { organizationId, email: 'disabled@example.com', role: 'edit' });
    await ctx.models.Membership.updateOne({ organizationId, userId: disabled.userId }, { $set: { disabled: true } });
    const memberships = await ctx.models.Membership.find({ organizationId }).lean();
    const asked: string[][] = [];
    const withClients = (batchCountSites: (request: { organizationIds: string[] }) => Promise<{ counts: number[] }>): IdentityContext => ({
      ...ctx,
      clients: {
        content: { batchCountSpaces: async ({ subjects }: { subjects: unknown[] }) => ({ counts: subjects.map(() => 1) }) },
        publishing: { batchCountSites: (request: { organizationIds: string[] }) => (asked.push(request.organizationIds), batchCountSites(request)) },
      } as unknown as ServiceClients,
    });

    const views = await viewsOf(
      withClients(async () => ({ counts: [7] })),
      organizationId,
      memberships,
    );
    const sites = Object.fromEntries(views.map((v) => [v.membership.userId, v.counts.sites]));
    assert.deepEqual(
      [sites[admin.userId], sites[reader.userId], sites[guest.userId], sites[disabled.userId]],
      [7, 7, 0, 0],
      'members with a role see every site; guests and disabled members none',
    );
    for (const m of memberships) assert.equal(sites[m.userId], m.role && !m.disabled ? 7 : 0);
    assert.deepEqual(asked, [[organizationId]], 'one publishing call for the whole page');

    const guests = memberships.filter((m) => m.userId === guest.userId);
    assert.equal(
      (
        await viewsOf(
          withClients(async () => ({ counts: [7] })),
          organizationId,
          guests,
        )
      )[0].counts.sites,
      0,
    );
    assert.equal(asked.length, 1, 'a page of guests asks publishing nothing');

    for (const code of [grpcStatus.UNAVAILABLE, grpcStatus.INVALID_ARGUMENT]) {
      const down = withClients(async () => {
        throw new ClientError('/quire.publishing.v1.PublishingService/BatchCountSites', code, 'down');
      });
      await assert.rejects(viewsOf(down, organizationId, memberships), (e: HttpError) => e.status === 503 && /Publishing service unavailable/.test(e.message));
    }
    await assert.rejects(viewsOf({ ...ctx, clients: undefined }, organizationId, memberships), (e: HttpError) => e.status === 503);
  });

  it('answers 503 when publishing cannot tell whether a default site is the organization’s, and stores nothing', async () => {
    // A port nothing listens on: publishing is down.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const clients = createServiceClients({ ...config, PUBLISHING_GRPC_ADDR: `127.0.0.1:${closed}` }, 'identity');
    const patch = { title: 'Renamed while down', defaultContent: { type: 'site' as const, site: 'any-site' } };
    await assert.rejects(
      updateOrganization({ ...ctx, clients }, admin.userId, admin.organizationId, patch),
      (e: HttpError) => e.status === 503 && /Publishing/.test(e.message),
    );
    const organization = await ctx.models.Organization.findById(admin.organizationId).lean();
    assert.equal(organization?.title, 'Acme Docs');
    assert.equal(organization?.defaultContent ?? null, null);
  });

  // That restJson is exactly the REST Member is checked end to end, against GET /v1/orgs/{organizationId}/members/{userId}
  // through the gateway, by content's commenters (services/content/src/test/comments.e2e.test.ts).
  it('returns members of one organization in request order, once each, with the counts content and publishing answer, in one batched call', async () => {
    const organizationId = admin.organizationId;
    const spacesAsked: unknown[][] = [];
    const stubbed: IdentityContext = {
      ...ctx,
      clients: {
        content: { batchCountSpaces: async ({ subjects }: { subjects: unknown[] }) => (spacesAsked.push(subjects), { counts: subjects.map(() => 2) }) },
        publishing: { batchCountSites: async () => ({ counts: [3] }) },
      } as unknown as ServiceClients,
    };
    const { members } = (await identityGrpc(stubbed).batchGetMembers(
      { organizationId, userIds: [reader.userId, 'nobody', admin.userId, reader.userId] },
      {} as never,
    )) as identity.BatchGetMembersResponse;
    assert.deepEqual(
      members.map((m) => m.userId),
      [reader.userId, admin.userId],
      'request order, duplicates once, non-members omitted',
    );
    assert.equal(spacesAsked.length, 1, 'one content call for the whole batch');
    for (const member of members) {
      const json = JSON.parse(member.restJson);
      assertMatchesOpenApi('OrganizationMember', json);
      assert.equal(member.organizationId, organizationId);
      assert.equal(json.id, member.userId);
    }
    assert.deepEqual(
      members.map((m) => [JSON.parse(m.restJson).role, JSON.parse(m.restJson).spaces, JSON.parse(m.restJson).sites]),
      [
        ['read', 2, 3],
        ['admin', 2, 3],
      ],
      'roles from the memberships, counts from the content and publishing answers',
    );

    assert.deepEqual((await grpc.batchGetMembers({ organizationId, userIds: [] })).members, []);
    assert.deepEqual((await grpc.batchGetMembers({ organizationId: 'other-org', userIds: ['nobody'] })).members, []);
    await assert.rejects(grpc.batchGetMembers({ organizationId: '', userIds: [reader.userId] }), (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT);
    await assert.rejects(
      grpc.batchGetMembers({ organizationId, userIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
    const contentDown: IdentityContext = {
      ...stubbed,
      clients: {
        ...stubbed.clients,
        content: {
          batchCountSpaces: async () => {
            throw new ClientError('/quire.content.v1.ContentService/BatchCountSpaces', grpcStatus.UNAVAILABLE, 'down');
          },
        },
      } as unknown as ServiceClients,
    };
    await assert.rejects(
      Promise.resolve(identityGrpc(contentDown).batchGetMembers({ organizationId, userIds: [reader.userId] }, {} as never)),
      (e: { code?: number }) => e.code === grpcStatus.UNAVAILABLE,
      'the counts cannot be made without content: unavailable, not internal',
    );
  });

  it('refuses gRPC callers without a valid service signature', async () => {
    const stranger = createGrpcClient(identity.IdentityServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: 'not-the-shared-secret-not-the-shared-secret',
      caller: 'intruder',
      deadlineMs: 2_000,
    });
    await assert.rejects(stranger.batchGetUsers({ ids: [admin.userId] }), (e: ClientError) => e.code === grpcStatus.UNAUTHENTICATED);
  });

  it('answers health and readiness', async () => {
    assert.equal((await http().get('/healthz')).status, 200);
    assert.deepEqual((await http().get('/readyz')).body, { status: 'ready' });
  });
});
