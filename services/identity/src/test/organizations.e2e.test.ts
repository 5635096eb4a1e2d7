import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { assertMatchesOpenApi, expectError, expectOk, sharedTestStack, type TestOrganization, type TestStack } from '@quire/testkit';

const SCRIPT_ADDRESSES = [
  'javascript:alert(1)',
  'JavaScript:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  'data:image/svg+xml;base64,PHN2Zz4=',
  'vbscript:msgbox(1)',
  'ftp://files.example.test/logo.png',
];

/**
 * Organization-level rules through the gateway: who sees a user's e-mail, which addresses an
 * organization stores, which site it may open on, and the same write sent several times at once.
 */
describe('identity: user privacy, organization addresses and concurrent writes (end to end)', () => {
  let stack: TestStack;
  let org: TestOrganization<'read' | 'edit' | 'guest'>;

  const orgPath = (path = '') => `/v1/orgs/${org.id}${path}`;

  beforeAll(async () => {
    stack = await sharedTestStack();
    org = await stack.organization({ domain: 'privacy.test', title: 'Privacy', roles: ['read', 'edit', 'guest'] });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('shows a user’s e-mail to fellow members with a role, the public profile to guests, nothing to outsiders', async () => {
    const { admin, members, outsider } = org;
    const seen = expectOk(await members.read.api.get(`/v1/users/${admin.userId}`));
    assertMatchesOpenApi('User', seen);
    assert.equal(seen.email, 'admin@privacy.test');
    assert.equal(expectOk(await admin.api.get(`/v1/users/${members.guest.userId}`)).email, 'guest@privacy.test', 'members see guests’ e-mail too');

    for (const other of [admin, members.read, members.edit]) {
      const asGuest = expectOk(await members.guest.api.get(`/v1/users/${other.userId}`));
      assertMatchesOpenApi('User', asGuest);
      assert.equal(asGuest.id, other.userId);
      assert.equal(typeof asGuest.displayName, 'string');
      assert.equal('email' in asGuest, false, 'a guest does not read the directory');
      assert.equal(JSON.stringify(asGuest).includes('@privacy.test'), false);
    }
    assert.equal(expectOk(await members.guest.api.get(`/v1/users/${members.guest.userId}`)).email, 'guest@privacy.test', 'everyone sees their own');

    expectError(await outsider.api.get(`/v1/users/${admin.userId}`), 404);
    expectError(await members.guest.api.get(`/v1/users/${outsider.userId}`), 404);
    expectError(await members.read.api.get('/v1/users/no-such-user'), 404);
  });

  it('stores only http(s) addresses as the logo and SAML sign-in address (400 naming the field)', async () => {
    for (const address of SCRIPT_ADDRESSES) {
      expectError(await org.admin.api.patch(orgPath(), { logo: address }), 400, 'logo');
      expectError(await org.admin.api.post(orgPath('/saml'), { label: 'IdP', ssoURL: address }), 400, 'ssoURL');
    }
    const saml = expectOk(await org.admin.api.get(orgPath('/saml')));
    assert.equal(saml.count, 0, 'no provider was created');

    const logo = 'https://cdn.example.test/logo.png';
    const withLogo = expectOk(await org.admin.api.patch(orgPath(), { logo }));
    assert.equal(withLogo.urls.logo, logo);
    assertMatchesOpenApi('Organization', withLogo);
    for (const address of SCRIPT_ADDRESSES) expectError(await org.admin.api.patch(orgPath(), { logo: address }), 400, 'logo');
    assert.equal(expectOk(await org.admin.api.get(orgPath())).urls.logo, logo, 'a refused address changes nothing');
    assert.equal(expectOk(await org.admin.api.patch(orgPath(), { logo: null })).urls.logo, undefined);
    expectOk(await org.admin.api.post(orgPath('/saml'), { label: 'IdP', ssoURL: 'https://idp.example.test/sso' }), 201);
  });

  it('opens only on one of the organization’s own sites (same 400 for an unknown site and another organization’s)', async () => {
    const own = expectOk(await org.admin.api.post(orgPath('/sites'), { title: 'Handbook' }), 201).id;
    const foreign = expectOk(await org.outsider.api.post(`/v1/orgs/${org.outsider.organizationId}/sites`, { title: 'Theirs' }), 201).id;

    const messages = new Set<string>();
    for (const site of [foreign, 'no-such-site']) {
      const refused = await org.admin.api.patch(orgPath(), { defaultContent: { type: 'site', site } });
      expectError(refused, 400, 'defaultContent.site');
      messages.add(refused.body.error.message);
    }
    assert.equal(messages.size, 1, 'the answer does not tell whether the site exists');
    assert.equal(expectOk(await org.admin.api.get(orgPath())).defaultContent, undefined, 'nothing was stored');
    // A refused site leaves the rest of the patch unapplied too.
    expectError(await org.admin.api.patch(orgPath(), { title: 'Renamed', defaultContent: { type: 'site', site: foreign } }), 400, 'defaultContent.site');
    assert.equal(expectOk(await org.admin.api.get(orgPath())).title, 'Privacy');

    const opened = expectOk(await org.admin.api.patch(orgPath(), { defaultContent: { type: 'site', site: own } }));
    assert.deepEqual(opened.defaultContent, { type: 'site', site: own });
    assertMatchesOpenApi('Organization', opened);
    // Non-admins are refused before the site is even looked at.
    expectError(await org.members.edit.api.patch(orgPath(), { defaultContent: { type: 'site', site: own } }), 403);
    assert.equal(expectOk(await org.admin.api.patch(orgPath(), { defaultContent: null })).defaultContent, undefined);
  });

  it('answers the same team write sent eight times at once eight times, with one row each; guests in the team see no e-mails', async () => {
    const { admin, members } = org;
    const team = expectOk(await admin.api.put(orgPath('/teams'), { title: 'Concurrency' }), 201).id;
    const teamMembers = orgPath(`/teams/${team}/members`);
    const eightTimes = (send: () => Promise<{ status: number; body: any }>) => Promise.all(Array.from({ length: 8 }, send));

    for (const answer of await eightTimes(() => admin.api.put(teamMembers, { add: [members.read.userId] }))) expectOk(answer, 204);
    for (const answer of await eightTimes(() => admin.api.put(`${teamMembers}/${members.edit.userId}`, { role: 'owner' }))) expectOk(answer, 204);
    for (const answer of await eightTimes(() => admin.api.put(teamMembers, { memberships: { [members.guest.userId]: { role: 'member' } } })))
      expectOk(answer, 204);

    const listed = expectOk(await admin.api.get(`${teamMembers}?limit=100`));
    assert.equal(listed.count, 3);
    const roles = Object.fromEntries(listed.items.map((item: any) => [item.organization.id, item.team.role]));
    assert.deepEqual(roles, { [members.read.userId]: 'member', [members.edit.userId]: 'owner', [members.guest.userId]: 'member' });
    assert.equal(expectOk(await admin.api.get(orgPath(`/teams/${team}`))).members, 3);
    assert.equal(expectOk(await admin.api.get(orgPath(`/members/${members.edit.userId}`))).teams, 1);
    for (const item of listed.items) assert.equal(typeof item.organization.user.email, 'string', 'the admin reads the directory');
    // The guest, now in the team, sees its members, but not their e-mails (only their own).
    const asGuest = expectOk(await members.guest.api.get(`${teamMembers}?limit=100`));
    assert.equal(asGuest.count, 3);
    for (const item of asGuest.items) {
      assertMatchesOpenApi('OrganizationMember', item.organization);
      assert.equal('email' in item.organization.user, item.organization.id === members.guest.userId);
    }
  });

  it('refuses organization inputs beyond the limits (400 naming the field), and keeps the organization as it was', async () => {
    const { admin } = org;
    for (const title of ['x', ' padded ', 'x'.repeat(256)]) {
      expectError(await admin.api.post('/v1/orgs', { title }), 400, 'title');
      expectError(await admin.api.patch(orgPath(), { title }), 400, 'title');
    }
    expectError(await admin.api.post('/v1/orgs', { title: 'Typed', type: 'charity' }), 400, 'type');
    expectError(await admin.api.post('/v1/orgs', { title: 'Used', useCase: 'games' }), 400, 'useCase');
    // Subdomain rule: 3..32 lowercase letters, digits and inner dashes.
    for (const hostname of ['ab', 'a'.repeat(33), 'Upper', '-dash', 'dash-', 'under_score'])
      expectError(await admin.api.patch(orgPath(), { hostname }), 400, 'hostname');
    expectError(await admin.api.patch(orgPath(), { emailDomains: ['not a domain'] }), 400, 'emailDomains');
    expectError(await admin.api.patch(orgPath(), { defaultRole: 'owner' }), 400, 'defaultRole');
    expectError(await admin.api.get('/v1/orgs?limit=1001'), 400, 'limit');
    const kept = expectOk(await admin.api.get(orgPath()));
    assert.equal(kept.title, 'Privacy');
    assert.notEqual(kept.hostname, 'ab');
    assert.ok(expectOk(await admin.api.get('/v1/orgs?limit=1000')).count >= 1);
  });

  it("gives a new organization GitBook's default role (read), and answers a role wherever the organization is shown", async () => {
    const created = expectOk(await org.admin.api.post('/v1/orgs', { title: 'Defaulted' }), 201);
    assert.equal(created.defaultRole, 'read');
    const path = `/v1/orgs/${created.id}`;
    assert.equal(expectOk(await org.admin.api.patch(path, { defaultRole: 'edit' })).defaultRole, 'edit');
    assert.equal(expectOk(await org.admin.api.get(path)).defaultRole, 'edit');
    // null (GitBook's "guests") puts the default back.
    assert.equal(expectOk(await org.admin.api.patch(path, { defaultRole: null })).defaultRole, 'read');
    const listed = expectOk(await org.admin.api.get('/v1/orgs?limit=1000')).items as Array<{ defaultRole: unknown }>;
    assert.ok(listed.length > 0 && listed.every((item) => typeof item.defaultRole === 'string'), 'every listed organization has a role');
    // As an integration's owner, seen from its catalogue.
    const integration = expectOk(
      await org.admin.api.post('/v1/integrations/defaulted-owner', {
        organization: created.id,
        title: 'Defaulted owner',
        description: 'Owned by an organization with the default role',
        scopes: [],
        script: 'export default { async fetch() { return new Response("ok"); } };',
      }),
    );
    assert.equal(integration.owner.defaultRole, 'read');
  });

  it('answers the same hostname claim sent eight times at once eight times', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => org.admin.api.patch(orgPath(), { hostname: 'privacy-docs' })));
    for (const answer of answers) assert.equal(expectOk(answer).hostname, 'privacy-docs');
    // The claim is the organization's: another one still cannot take it.
    expectError(await org.outsider.api.patch(`/v1/orgs/${org.outsider.organizationId}`, { hostname: 'privacy-docs' }), 409, 'hostname');
  });
});
