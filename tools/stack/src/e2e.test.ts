import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { apiClient, assertMatchesOpenApi, cleanupTestEnvironment, startTestStack, testEnvironment, type TestStack } from '@quire/testkit';

/** The whole stack started as `npm start` starts it, driven over HTTP through the gateway. */
describe('end to end through the gateway', () => {
  let stack: TestStack;
  let admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startTestStack({ LOG_LEVEL: 'info' });
    admin = apiClient(stack.baseUrl, stack.adminToken);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('writes the first admin token on first start, readable by its owner only', async () => {
    const file = path.join(stack.dataDir, 'admin-token');
    assert.ok(existsSync(file));
    assert.equal(statSync(file).mode & 0o077, 0, 'admin-token must not be readable by others');
    const me = await admin.get('/v1/user');
    assert.equal(me.status, 200);
    assert.deepEqual(Object.keys(me.body).sort(), ['displayName', 'email', 'id', 'object', 'urls']);
    assert.equal(me.body.object, 'user');
    assert.equal(me.body.urls.location, `${stack.baseUrl}/v1/users/${me.body.id}`);
    assertMatchesOpenApi('User', me.body);
  });

  it('answers GET /v1/user only with a live token: 401 in the error shape without one, with an unknown one, or with another scheme', async () => {
    // No id, no input and no role rule here: the refusal that applies is authentication.
    const refusals = [
      [await apiClient(stack.baseUrl).get('/v1/user'), /Authentication required/],
      [await apiClient(stack.baseUrl, 'qr_no-such-token').get('/v1/user'), /Invalid or revoked/],
      [await apiClient(stack.baseUrl).request('GET', '/v1/user', { headers: { authorization: `Basic ${stack.adminToken}` } }), /Authentication required/],
    ] as const;
    for (const [response, message] of refusals) {
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.deepEqual(Object.keys(response.body), ['error']);
      assert.equal(response.body.error.code, 401);
      assert.match(response.body.error.message, message);
      assert.equal(JSON.stringify(response.body).includes('@'), false, 'nobody’s user is shown');
    }
  });

  it('is ready when every service and both datastores answer', async () => {
    const ready = await apiClient(stack.baseUrl).get('/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body.checks, { redis: true, identity: true, content: true, publishing: true, integrations: true, insights: true });
  });

  it('creates organizations (caller becomes admin) with the full Organization object', async () => {
    const created = await admin.post('/v1/orgs', { title: 'Docs Team', emailDomains: ['example.com'], useCase: 'productDocs' });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), created.body.urls.location);
    const org = created.body;
    assert.equal(org.object, 'organization');
    assert.equal(org.title, 'Docs Team');
    assert.deepEqual(org.emailDomains, ['example.com']);
    assert.equal(org.type, 'business');
    assert.equal(org.useCase, 'productDocs');
    assert.equal(org.defaultRole, 'read', "GitBook's default role of a new organization");
    assert.equal(org.plan, 'free_2024');
    assert.deepEqual(org.mergeRules, { type: 'rules', rules: [] });
    assert.equal(org.trial.status, 'notapplicable');
    assert.ok(org.billing, 'admins see billing');
    assert.equal(org.permissions.admin, true);
    assert.equal(org.permissions.viewBilling, true);
    assert.ok(!Number.isNaN(Date.parse(org.createdAt)));
    const fetched = await admin.get(`/v1/orgs/${org.id}`);
    assert.deepEqual(fetched.body, org);
    assertMatchesOpenApi('Organization', org);
    const list = await admin.get('/v1/orgs');
    for (const item of list.body.items) assertMatchesOpenApi('Organization', item);
    assertMatchesOpenApi('List', list.body);
  });

  it('validates organization input with 400 naming the field', async () => {
    for (const [body, field] of [
      [{}, 'title'],
      [{ title: 'x' }, 'title'],
      [{ title: ' padded ' }, 'title'],
      [{ title: 'Fine', emailDomains: ['not a domain'] }, 'emailDomains.0'],
      [{ title: 'Fine', type: 'galactic' }, 'type'],
    ] as const) {
      const response = await admin.post('/v1/orgs', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.error.code, 400);
      assert.match(response.body.error.message, new RegExp(`\\b${field.replace('.', '\\.')}\\b`));
    }
    const notJson = await admin.request('POST', '/v1/orgs', { body: '{oops', headers: { 'content-type': 'application/json' } });
    assert.equal(notJson.status, 400);
  });

  it('lists the caller’s organizations with keyset pagination', async () => {
    const fresh = await stack.account(['bootstrap', '--email', 'pager@example.com', '--org', 'Page One']);
    const pager = apiClient(stack.baseUrl, fresh.token);
    for (const title of ['Page Two', 'Page Three', 'Page Four']) assert.equal((await pager.post('/v1/orgs', { title })).status, 201);
    const titles: string[] = [];
    let page: string | undefined;
    do {
      const response = await pager.get(`/v1/orgs?limit=3${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.count, 4);
      assert.ok(response.body.items.length <= 3);
      titles.push(...response.body.items.map((o: { title: string }) => o.title));
      page = response.body.next?.page;
    } while (page);
    assert.deepEqual(titles, ['Page Four', 'Page Three', 'Page Two', 'Page One']);
    assert.equal((await pager.get('/v1/orgs?limit=1001')).status, 400);
    assert.equal((await pager.get('/v1/orgs?limit=0')).status, 400);
    assert.equal((await pager.get('/v1/orgs?page=garbage')).status, 400);
  });

  it('hides organizations from non-members (404) and tells members the truth about permissions', async () => {
    const owner = await stack.account(['bootstrap', '--email', 'owner@example.com', '--org', 'Private Org']);
    const outsider = await stack.account(['bootstrap', '--email', 'outsider@example.com', '--org', 'Elsewhere']);
    const reader = await stack.account(['add-member', '--org', owner.organizationId, '--email', 'reader@example.com', '--role', 'read']);
    const guest = await stack.account(['add-member', '--org', owner.organizationId, '--email', 'guest@example.com', '--role', 'guest']);

    const hidden = await apiClient(stack.baseUrl, outsider.token).get(`/v1/orgs/${owner.organizationId}`);
    assert.equal(hidden.status, 404);
    assert.equal((await admin.get('/v1/orgs/does-not-exist')).status, 404);

    const asReader = await apiClient(stack.baseUrl, reader.token).get(`/v1/orgs/${owner.organizationId}`);
    assert.equal(asReader.status, 200);
    assert.equal(asReader.body.permissions.admin, false);
    assert.equal(asReader.body.permissions.createContent, false);
    assert.equal(asReader.body.permissions.listMembers, true);
    assert.equal(asReader.body.permissions.viewBilling, false);
    assert.equal(asReader.body.billing, undefined);

    assertMatchesOpenApi('Organization', asReader.body);
    const asGuest = await apiClient(stack.baseUrl, guest.token).get(`/v1/orgs/${owner.organizationId}`);
    assert.equal(asGuest.body.permissions.view, true);
    assert.equal(asGuest.body.permissions.listMembers, false);

    const forbidden = await apiClient(stack.baseUrl, reader.token).patch(`/v1/orgs/${owner.organizationId}`, { title: 'Mine now' });
    assert.equal(forbidden.status, 403);
    const renamed = await apiClient(stack.baseUrl, owner.token).patch(`/v1/orgs/${owner.organizationId}`, { title: 'Renamed Org', hostname: 'renamed-org' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.hostname, 'renamed-org');
    const taken = await apiClient(stack.baseUrl, outsider.token).patch(`/v1/orgs/${outsider.organizationId}`, { hostname: 'renamed-org' });
    assert.equal(taken.status, 409);
    const invisible = await apiClient(stack.baseUrl, outsider.token).patch(`/v1/orgs/${owner.organizationId}`, { title: 'Hijack' });
    assert.equal(invisible.status, 404);
    const invalid = await apiClient(stack.baseUrl, owner.token).patch(`/v1/orgs/${owner.organizationId}`, { hostname: 'Not Valid!', defaultRole: 'boss' });
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.error.message, /hostname/);
    assert.match(invalid.body.error.message, /defaultRole/);
    const unknownField = await apiClient(stack.baseUrl, owner.token).patch(`/v1/orgs/${owner.organizationId}`, { plan: 'enterprise_2024' });
    assert.equal(unknownField.status, 400, 'fields outside the update body are refused, not silently ignored');
    const inherit = await apiClient(stack.baseUrl, owner.token).patch(`/v1/orgs/${owner.organizationId}`, { mergeRules: { type: 'inherit' } });
    assert.equal(inherit.status, 400, 'an organization has nothing to inherit merge rules from');
    const rules = { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [owner.userId] }] };
    const updated = await apiClient(stack.baseUrl, owner.token).patch(`/v1/orgs/${owner.organizationId}`, { defaultRole: 'edit', mergeRules: rules });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.defaultRole, 'edit');
    assert.deepEqual(updated.body.mergeRules, rules);
  });

  it('lets members see each other, and nobody else', async () => {
    const owner = await stack.account(['bootstrap', '--email', 'pair-a@example.com', '--org', 'Pair']);
    const peer = await stack.account(['add-member', '--org', owner.organizationId, '--email', 'pair-b@example.com', '--role', 'edit']);
    const stranger = await stack.account(['bootstrap', '--email', 'pair-c@example.com', '--org', 'Alone']);
    assert.equal((await apiClient(stack.baseUrl, owner.token).get(`/v1/users/${peer.userId}`)).status, 200);
    assert.equal((await apiClient(stack.baseUrl, stranger.token).get(`/v1/users/${peer.userId}`)).status, 404);
  });

  it('CLI add-member is idempotent on the user and refuses bad roles', async () => {
    const org = await stack.cli(['bootstrap', '--email', 'cli-owner@example.com', '--org', 'CLI Org', '--json']);
    const first = await stack.cli(['add-member', '--org', org.organizationId, '--email', 'Same@Example.com', '--role', 'edit', '--json']);
    const second = await stack.cli(['add-member', '--org', org.organizationId, '--email', 'same@example.com', '--role', 'review', '--json']);
    assert.equal(first.userId, second.userId);
    assert.notEqual(first.token, second.token);
    const view = await apiClient(stack.baseUrl, second.token).get(`/v1/orgs/${org.organizationId}`);
    assert.equal(view.body.permissions.listMembers, true);
    await assert.rejects(stack.cli(['add-member', '--org', org.organizationId, '--email', 'x@example.com', '--role', 'king', '--json']), /role/);
  });

  it("runs the same commands on the stack's control socket (tests' accounts): a bad one is a 400 naming the option, the socket private", async () => {
    const { controlSocket } = JSON.parse(readFileSync(path.join(stack.dataDir, 'stack.json'), 'utf8'));
    assert.equal(statSync(path.dirname(controlSocket)).mode & 0o077, 0, 'only its user enters the data directory');
    const made = await stack.account(['bootstrap', '--email', 'socket@example.com', '--org', 'Socket Org']);
    const member = await stack.account(['add-member', '--org', made.organizationId, '--email', 'socket-reader@example.com', '--role', 'read']);
    assert.equal((await member.api.get(`/v1/orgs/${made.organizationId}`)).status, 200);
    await assert.rejects(stack.account(['add-member', '--org', made.organizationId, '--email', 'x@example.com', '--role', 'king']), /--role: must be one of/);
    await assert.rejects(stack.account(['bootstrap', '--email', 'not-an-address', '--org', 'Socket Org']), /--email/);
    await assert.rejects(stack.account(['unheard-of']), /unknown command unheard-of/);
  });

  it('CLI revoke-token shuts a token out at once', async () => {
    const issued = await stack.cli(['bootstrap', '--email', 'revoked@example.com', '--org', 'Revoked', '--json']);
    const client = apiClient(stack.baseUrl, issued.token);
    assert.equal((await client.get('/v1/user')).status, 200);
    assert.deepEqual(await stack.cli(['revoke-token', '--token', issued.token, '--json']), { revoked: true });
    assert.equal((await client.get('/v1/user')).status, 401);
    assert.deepEqual(await stack.cli(['revoke-token', '--token', issued.token, '--json']), { revoked: false });
  });

  it('works with the official @gitbook/api client unchanged', async () => {
    // The package's typings import their base class without a file extension, which
    // CommonJS + nodenext resolution cannot follow; the runtime object is complete.
    const client: any = new GitBookAPI({ authToken: stack.adminToken, endpoint: stack.baseUrl });
    const user = await client.user.getAuthenticatedUser();
    assert.equal(user.data.object, 'user');
    const orgs = await client.orgs.listOrganizationsForAuthenticatedUser({ limit: 50 });
    assert.ok(orgs.data.items.length >= 1);
    const created = await client.orgs.createOrganization({ title: 'From The Client' });
    assert.equal(created.status, 201);
    const org = await client.orgs.getOrganizationById(created.data.id);
    assert.equal(org.data.title, 'From The Client');
    await assert.rejects(client.orgs.getOrganizationById('missing-org'), (error: { code?: number }) => error.code === 404);
  });

  it('keeps tokens out of the logs, and carries the request id into the service logs', async () => {
    const issued = await stack.cli(['bootstrap', '--email', 'logs@example.com', '--org', 'Logs', '--json']);
    await apiClient(stack.baseUrl, issued.token).request('GET', '/v1/user', { headers: { 'x-request-id': 'e2e-trace-4242' } });
    await new Promise((r) => setTimeout(r, 200)); // let the services flush their log lines
    const traced = stack
      .output()
      .split('\n')
      .filter((line) => line.includes('e2e-trace-4242'));
    assert.ok(
      traced.some((line) => line.includes('"service":"gateway"')),
      'gateway logs the request id',
    );
    assert.ok(
      traced.some((line) => line.includes('"service":"identity"')),
      'identity logs the same request id',
    );
    await apiClient(stack.baseUrl, `${issued.token}x`).get('/v1/user');
    const output = stack.output();
    assert.match(output, /"path":"\/v1\/user"/, 'access log lines are there');
    assert.ok(!output.includes(stack.adminToken));
    assert.ok(!output.includes(issued.token));
  });

  // The npm start lifecycle, beside this describe's stack (still running: two stacks side by side).
  it('runs a second stack beside this one, stops every process on SIGTERM, and keeps data across restarts', async () => {
    const one = await startTestStack({}, { keepData: true });
    const two = stack;
    assert.notEqual(one.baseUrl, two.baseUrl);
    // Each stack has its own admin, unknown to the other.
    assert.equal((await apiClient(one.baseUrl, one.adminToken).get('/v1/user')).status, 200);
    assert.equal((await apiClient(two.baseUrl, one.adminToken).get('/v1/user')).status, 401);
    assert.equal((await apiClient(one.baseUrl, two.adminToken).get('/v1/user')).status, 401);

    const pid = JSON.parse(readFileSync(path.join(one.dataDir, 'stack.json'), 'utf8')).pid as number;
    const children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
    assert.equal(children.length, 6, 'five services and the gateway');
    await one.stop();
    assert.equal((await one.exited).code, 0);
    assert.equal((await apiClient(two.baseUrl, two.adminToken).get('/v1/user')).status, 200, 'the other stack serves on');
    for (const child of children) assert.throws(() => process.kill(Number(child), 0), 'child process must be gone');
    assert.ok(!existsSync(path.join(one.dataDir, 'stack.json')), 'the state file goes with the stack');

    // Restarted on the same data: no second admin, the first token still works.
    const again = await startTestStack({}, { reuse: one, keepData: true });
    try {
      assert.equal(readFileSync(path.join(again.dataDir, 'admin-token'), 'utf8').trim(), one.adminToken);
      const orgs = await apiClient(again.baseUrl, one.adminToken).get('/v1/orgs');
      assert.equal(orgs.status, 200);
      assert.equal(orgs.body.count, 1);
    } finally {
      await again.stop();
    }

    // Restarted against an empty database: the stale token is replaced by a working one.
    await cleanupTestEnvironment(one.env);
    const wiped = await startTestStack({}, { reuse: { dataDir: one.dataDir, env: await testEnvironment() } });
    try {
      assert.notEqual(wiped.adminToken, one.adminToken);
      assert.equal((await apiClient(wiped.baseUrl, wiped.adminToken).get('/v1/user')).status, 200);
    } finally {
      await wiped.stop();
    }
  });
});
