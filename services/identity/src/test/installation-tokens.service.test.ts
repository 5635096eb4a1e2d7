import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { identity } from '@quire/proto';
import { ClientError, createGrpcClient, grpcStatus, hashSecret, signPrincipal, tokenCacheKey, type BackendConfig } from '@quire/runtime';
import { apiClient, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { addMemberWithToken, bootstrapAdmin } from '../admin';
import type { IdentityContext } from '../domain/context';
import { INSTALLATION_TOKEN_LIFETIME_MS, installationRole } from '../domain/installations';
import { startIdentity } from '../service';

type IdentityClient = identity.IdentityServiceClient<{ deadline?: number; retry?: boolean }>;

describe('installation tokens: issue, resolve, membership, revoke (identity service, real datastore and Redis)', () => {
  let env: TestEnvironment;
  let config: BackendConfig;
  let service: Awaited<ReturnType<typeof startIdentity>>;
  let ctx: IdentityContext;
  /** Calls as the integrations service (the only one allowed to issue and revoke). */
  let integrations: IdentityClient;
  /** Calls as any other service. */
  let other: IdentityClient;
  let acme: { userId: string; organizationId: string; token: string };
  let globex: { userId: string; organizationId: string; token: string };
  let counter = 0;

  const client = (caller: string): IdentityClient =>
    createGrpcClient(identity.IdentityServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: config.INTERNAL_HMAC_SECRET,
      caller,
      deadlineMs: 5_000,
    });
  const as = (userId: string, organizationId?: string) => {
    const { value, signature } = signPrincipal(config.INTERNAL_HMAC_SECRET, { userId, tokenId: 't', ...(organizationId ? { organizationId } : {}) });
    return { headers: { 'x-quire-principal': value, 'x-quire-signature': signature } };
  };
  const http = () => apiClient(`http://127.0.0.1:${service.httpPort}`);
  const request = (scopes: string[], fields: Partial<identity.IssueInstallationTokenRequest> = {}): identity.IssueInstallationTokenRequest => ({
    installationId: `installation-${++counter}`,
    organizationId: acme.organizationId,
    integrationName: 'recorder',
    integrationTitle: 'The Recorder',
    scopes,
    selection: undefined,
    accessVersion: 0,
    ...fields,
  });
  const refused = (code: number) => (error: unknown) => error instanceof ClientError && error.code === code;

  beforeAll(async () => {
    env = await testEnvironment();
    config = testBackendConfig(env);
    service = await startIdentity(config, { handleSignals: false });
    ctx = service.context;
    acme = await bootstrapAdmin(ctx, { email: 'admin@acme.test', organizationTitle: 'Acme' });
    await addMemberWithToken(ctx, { organizationId: acme.organizationId, email: 'reader@acme.test', role: 'read' });
    globex = await bootstrapAdmin(ctx, { email: 'admin@globex.test', organizationTitle: 'Globex' });
    integrations = client('integrations');
    other = client('content');
  });

  afterAll(async () => {
    await service?.stop();
    if (env) await cleanupTestEnvironment(env);
  });

  it('derives the role from the scopes: any write scope or git sync edits, the rest reads, never admin', () => {
    assert.equal(installationRole([]), 'read');
    assert.equal(installationRole(['space:content:read', 'space:metadata:read']), 'read');
    assert.equal(installationRole(['space:content:read', 'space:metadata:write']), 'edit');
    assert.equal(installationRole(['space:content:write']), 'edit');
    assert.equal(installationRole(['space:git:sync']), 'edit');
    assert.equal(installationRole(['organization:admin:write' as string]), 'edit', 'never more than edit');
  });

  it('issues and revokes for the integrations service only', async () => {
    await assert.rejects(other.issueInstallationToken(request(['space:content:read'])), refused(grpcStatus.PERMISSION_DENIED));
    await assert.rejects(other.revokeInstallationTokens({ installationIds: ['x'] }), refused(grpcStatus.PERMISSION_DENIED));
    await assert.rejects(integrations.issueInstallationToken(request([], { organizationId: '' })), refused(grpcStatus.INVALID_ARGUMENT));
  });

  it('issues a short-lived token, stored hashed, that resolves to the installation’s user scoped to its organization', async () => {
    const started = Date.now();
    const issued = await integrations.issueInstallationToken(request(['space:content:read']));
    assert.match(issued.token, /^qr_/);
    const lifetime = issued.expireTime!.getTime() - started;
    assert.ok(lifetime > INSTALLATION_TOKEN_LIFETIME_MS - 60_000 && lifetime <= INSTALLATION_TOKEN_LIFETIME_MS + 1_000, `${lifetime} ms`);
    const stored = await ctx.models.ApiToken.findOne({ userId: issued.userId }).lean();
    assert.equal(stored?.hash, hashSecret(issued.token));
    assert.ok(!JSON.stringify(stored).includes(issued.token));

    const resolved = await other.resolveToken({ token: issued.token });
    assert.deepEqual(resolved.user && { ...resolved.user, createTime: undefined }, {
      id: issued.userId,
      displayName: 'The Recorder',
      email: '',
      photoUrl: '',
      createTime: undefined,
    });
    assert.equal(resolved.organizationId, acme.organizationId);
    assert.equal(resolved.expireTime?.getTime(), issued.expireTime?.getTime());
    assert.equal(resolved.installationId, `installation-${counter}`);
    assert.deepEqual(resolved.installationScopes, ['space:content:read']);
    const user = await ctx.models.User.findById(issued.userId).lean();
    assert.equal(user?.kind, 'installation');
    assert.ok(!user?.email.includes('@'), 'no address: no e-mail lookup or sign-in finds it');
    // A user's own token carries none of it.
    const own = await other.resolveToken({ token: acme.token });
    assert.equal(own.expireTime, undefined);
    assert.equal(own.installationId, '');
  });

  it('answers membership lookups for the installation in its organization only, without a member row', async () => {
    const before = await other.listMembers({ organizationId: acme.organizationId });
    const issued = await integrations.issueInstallationToken(request(['space:content:read']));
    const { membership } = await other.getMembership({ organizationId: acme.organizationId, userId: issued.userId });
    assert.equal(membership?.member, true);
    assert.equal(membership?.role, identity.Role.ROLE_READ);
    assert.deepEqual(membership?.teamIds, []);
    const elsewhere = await other.getMembership({ organizationId: globex.organizationId, userId: issued.userId });
    assert.equal(elsewhere.membership?.member, false);
    const batch = await other.batchGetMemberships({ userId: issued.userId, organizationIds: [globex.organizationId, acme.organizationId] });
    assert.deepEqual(
      batch.memberships.map((m) => [m.organizationId, m.role]),
      [[acme.organizationId, identity.Role.ROLE_READ]],
    );

    // Member lists, counts and what may be granted stay as they were.
    const after = await other.listMembers({ organizationId: acme.organizationId });
    assert.equal(after.totalSize, before.totalSize);
    assert.ok(!after.memberships.some((m) => m.userId === issued.userId));
    assert.deepEqual((await other.batchGetMembers({ organizationId: acme.organizationId, userIds: [issued.userId] })).members, []);
    assert.deepEqual((await other.batchGetUsers({ ids: [issued.userId], organizationId: acme.organizationId })).users, []);
    // Authorship: shown with the integration's title, without e-mail.
    const [author] = (await other.batchGetUsers({ ids: [issued.userId] })).users;
    assert.equal(author.displayName, 'The Recorder');
    assert.equal(author.email, '');

    // REST: the installation sees itself without e-mail; members of its organization see it, others do not.
    const self = await http().request('GET', '/v1/user', as(issued.userId, acme.organizationId));
    assert.equal(self.status, 200);
    assert.equal(self.body.displayName, 'The Recorder');
    assert.equal('email' in self.body, false);
    const seen = await http().request('GET', `/v1/users/${issued.userId}`, as(acme.userId));
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    assert.equal('email' in seen.body, false);
    assert.equal((await http().request('GET', `/v1/users/${issued.userId}`, as(globex.userId))).status, 404);
  });

  it('follows the scopes and title of the latest issue: the role (write scopes edit) and the name', async () => {
    const first = await integrations.issueInstallationToken(request(['space:content:read']));
    const installationId = `installation-${counter}`;
    const again = await integrations.issueInstallationToken({
      ...request(['space:content:read', 'space:metadata:write']),
      installationId,
      integrationTitle: 'Recorder 2',
    });
    assert.equal(again.userId, first.userId, 'one user per installation');
    assert.notEqual(again.token, first.token);
    const { membership } = await other.getMembership({ organizationId: acme.organizationId, userId: first.userId });
    assert.equal(membership?.role, identity.Role.ROLE_EDIT);
    // Both tokens act with the installation's current scopes.
    assert.deepEqual((await other.resolveToken({ token: first.token })).installationScopes, ['space:content:read', 'space:metadata:write']);
    assert.equal((await other.batchGetUsers({ ids: [first.userId] })).users[0].displayName, 'Recorder 2');
    // The installation is bound to its organization.
    await assert.rejects(
      integrations.issueInstallationToken({ ...request([]), installationId, organizationId: globex.organizationId }),
      refused(grpcStatus.FAILED_PRECONDITION),
    );
  });

  it('keeps the newest access it is given (by version), and answers the reach with the membership: the selection, of the kinds the scopes name', async () => {
    const selection = (spaceIds: string[], siteIds: string[] = []) => ({ allSpaces: false, spaceIds, allSites: false, siteIds });
    const issued = await integrations.issueInstallationToken(request(['space:content:read'], { selection: selection(['s1']), accessVersion: 3 }));
    const installationId = `installation-${counter}`;
    const reach = async () => (await other.getMembership({ organizationId: acme.organizationId, userId: issued.userId })).membership?.installationReach;
    // Sites are not reached: no scope names them.
    assert.deepEqual(await reach(), selection(['s1']));
    const access = (version: number, scopes: string[], spaceIds: string[], siteIds: string[] = []) => ({
      installationId,
      organizationId: acme.organizationId,
      integrationName: 'recorder',
      integrationTitle: 'The Recorder',
      scopes,
      selection: selection(spaceIds, siteIds),
      version,
    });
    // An older access (a token issued before a change landed) changes nothing.
    assert.deepEqual(await integrations.updateInstallationAccess({ installations: [access(2, ['space:content:write'], ['s1', 's2'])] }), { changedCount: 0 });
    await integrations.issueInstallationToken({
      ...request(['space:content:write'], { selection: selection(['s1', 's2']), accessVersion: 1 }),
      installationId,
    });
    assert.deepEqual(await reach(), selection(['s1']));
    assert.deepEqual((await other.resolveToken({ token: issued.token })).installationScopes, ['space:content:read']);
    // A newer one is in force at once, for the live token too.
    assert.deepEqual(
      await integrations.updateInstallationAccess({ installations: [access(4, ['space:content:write', 'site:metadata:read'], ['s2'], ['site1'])] }),
      { changedCount: 1 },
    );
    assert.deepEqual(await reach(), selection(['s2'], ['site1']));
    assert.deepEqual((await other.resolveToken({ token: issued.token })).installationScopes, ['space:content:write', 'site:metadata:read']);
    assert.equal((await other.getMembership({ organizationId: acme.organizationId, userId: issued.userId })).membership?.role, identity.Role.ROLE_EDIT);
    // Scopes naming neither spaces nor sites reach neither, whatever the selection.
    await integrations.updateInstallationAccess({
      installations: [{ ...access(5, ['conversations:ingest'], []), selection: { ...selection([]), allSpaces: true, allSites: true } }],
    });
    assert.deepEqual(await reach(), selection([]));
    // Only the integrations service sets it; an ordinary member has no reach.
    await assert.rejects(other.updateInstallationAccess({ installations: [access(6, [], [])] }), refused(grpcStatus.PERMISSION_DENIED));
    assert.equal((await other.getMembership({ organizationId: acme.organizationId, userId: acme.userId })).membership?.installationReach, undefined);
  });

  it('makes one user of first issues sent at once', async () => {
    const base = request(['space:content:read']);
    const issued = await Promise.all(Array.from({ length: 4 }, () => integrations.issueInstallationToken(base)));
    assert.equal(new Set(issued.map((i) => i.userId)).size, 1);
    assert.equal(await ctx.models.User.countDocuments({ kind: 'installation', displayName: 'The Recorder', _id: { $in: issued.map((i) => i.userId) } }), 1);
    for (const { token } of issued) assert.equal((await other.resolveToken({ token })).user?.id, issued[0].userId);
  });

  it('refuses an expired token, and clears expired ones on the next issue', async () => {
    const issued = await integrations.issueInstallationToken(request([]));
    const installationId = `installation-${counter}`;
    await ctx.models.ApiToken.updateOne({ hash: hashSecret(issued.token) }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });
    await assert.rejects(other.resolveToken({ token: issued.token }), refused(grpcStatus.NOT_FOUND));
    await integrations.issueInstallationToken({ ...request([]), installationId });
    assert.equal(await ctx.models.ApiToken.countDocuments({ hash: hashSecret(issued.token) }), 0);
  });

  it('revokes every token of an installation for good, drops them from the gateway’s cache, and ends its standing', async () => {
    const first = await integrations.issueInstallationToken(request(['space:content:write']));
    const installationId = `installation-${counter}`;
    const second = await integrations.issueInstallationToken({ ...request(['space:content:write']), installationId });
    // What the gateway keeps of a resolved token.
    const cacheKey = tokenCacheKey(hashSecret(first.token));
    await ctx.redis.set(cacheKey, JSON.stringify({ userId: first.userId, tokenId: 'cached' }), 'EX', 60);

    assert.deepEqual(await integrations.revokeInstallationTokens({ installationIds: [installationId] }), { revokedCount: 2 });
    assert.equal(await ctx.redis.exists(cacheKey), 0);
    for (const { token } of [first, second]) await assert.rejects(other.resolveToken({ token }), refused(grpcStatus.NOT_FOUND));
    const { membership } = await other.getMembership({ organizationId: acme.organizationId, userId: first.userId });
    assert.equal(membership?.member, false);
    await assert.rejects(integrations.issueInstallationToken({ ...request([]), installationId }), refused(grpcStatus.FAILED_PRECONDITION));
    assert.deepEqual(await integrations.revokeInstallationTokens({ installationIds: [installationId] }), { revokedCount: 0 }, 'idempotent');
    // Its user stays, for what it wrote.
    assert.equal((await other.batchGetUsers({ ids: [first.userId] })).users[0].displayName, 'The Recorder');

    // An installation removed before it ever had a token never gets one.
    await integrations.revokeInstallationTokens({ installationIds: ['never-issued'] });
    await assert.rejects(integrations.issueInstallationToken({ ...request([]), installationId: 'never-issued' }), refused(grpcStatus.FAILED_PRECONDITION));
  });
});
