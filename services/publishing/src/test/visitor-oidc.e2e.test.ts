import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient, assertMatchesOpenApi, sharedTestStack, type ApiClient, type TestStack } from '@quire/testkit';

/**
 * A visitor-auth site's OpenID Connect provider, configured through the API: who may set it, the
 * 400s that name the field, the client secret never shown, and what visitors get once it is set.
 * (Signing in at a real provider is the browser suite's: tools/stack published-sites.browser.)
 */
describe('publishing: OpenID Connect visitor sign-in settings', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let reader: ApiClient;
  let outsider: ApiClient;
  let org: string;
  let space: string;
  const SECRET = 'the-client-secret-nobody-may-see-0123456789';
  const ISSUER = 'https://id.example.com/realms/docs';
  const sites = () => `/v1/orgs/${org}/sites`;

  const expect400 = async (response: Promise<{ status: number; body: any }>, field: string) => {
    const { status, body } = await response;
    assert.equal(status, 400, `${field}: ${JSON.stringify(body)}`);
    assert.match(body.error.message, new RegExp(`\\b${field.replaceAll('.', '\\.')}\\b`));
    assert.ok(!JSON.stringify(body).includes(SECRET));
  };
  const visit = (path: string) => fetch(`${stack.baseUrl}${path}`, { redirect: 'manual', signal: AbortSignal.timeout(15_000) });

  beforeAll(async () => {
    stack = await sharedTestStack();
    const owner = await stack.account(['bootstrap', '--email', 'oidc-owner@example.com', '--org', 'OIDC Org']);
    const other = await stack.account(['bootstrap', '--email', 'oidc-outsider@example.com', '--org', 'OIDC Elsewhere']);
    org = owner.organizationId;
    admin = apiClient(stack.baseUrl, owner.token);
    outsider = apiClient(stack.baseUrl, other.token);
    reader = apiClient(stack.baseUrl, (await stack.account(['add-member', '--org', org, '--email', 'oidc-reader@example.com', '--role', 'read'])).token);
    const created = await admin.post(`/v1/orgs/${org}/spaces`, { title: 'Members only' });
    space = created.body.id;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('is set by admins only, with its secret never shown, and refuses a malformed provider naming the field', async () => {
    const created = (await admin.post(sites(), { title: 'Members', visibility: 'visitor-auth', spaces: [space] })).body;
    const site = (await admin.post(`${sites()}/${created.id}/publish`)).body;
    const path = `${sites()}/${site.id}/publishing/auth`;
    const oidc = { issuer: ISSUER, clientId: 'docs-site', clientSecret: SECRET, scopes: ['openid', 'profile', 'groups'] };

    assert.equal((await reader.patch(path, { oidc })).status, 403);
    assert.equal((await outsider.patch(path, { oidc })).status, 404);
    assert.equal((await admin.get(path)).body.oidc, undefined, 'none yet');

    const set = await admin.patch(path, { oidc });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assertMatchesOpenApi('SitePublishingAuth', set.body);
    const root = site.urls.published;
    const shown = {
      issuer: ISSUER,
      clientId: 'docs-site',
      scopes: ['openid', 'profile', 'groups'],
      clientSecretSet: true,
      redirectURL: `${root}~/auth/oidc/callback`,
      postLogoutRedirectURL: root,
    };
    assert.deepEqual(set.body.oidc, shown);
    const read = await admin.get(path);
    assert.deepEqual(read.body.oidc, shown);
    for (const body of [set.body, read.body, (await admin.get(`${sites()}/${site.id}`)).body]) assert.ok(!JSON.stringify(body).includes(SECRET));
    assert.ok(!stack.output().includes(SECRET), 'nor logged');

    // Another client id, with the secret left out: the stored secret is not given to it.
    await expect400(admin.patch(path, { oidc: { issuer: ISSUER, clientId: 'another' } }), 'oidc.clientSecret');
    // The same one, without the secret: kept; scopes always include openid.
    const kept = await admin.patch(path, { oidc: { issuer: ISSUER, clientId: 'docs-site', scopes: ['email'] } });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual([kept.body.oidc.scopes, kept.body.oidc.clientSecretSet], [['openid', 'email'], true]);

    for (const issuer of [
      'not a url',
      'http://id.example.com',
      'https://127.0.0.1/',
      'https://localhost:8443',
      'https://169.254.169.254/',
      'https://[::1]/',
      'https://id.example.com/?tenant=1',
      'https://user:password@id.example.com',
      'javascript:alert(1)',
      '',
    ])
      await expect400(admin.patch(path, { oidc: { ...oidc, issuer } }), 'oidc.issuer');
    await expect400(admin.patch(path, { oidc: { ...oidc, clientId: '' } }), 'oidc.clientId');
    await expect400(admin.patch(path, { oidc: { ...oidc, clientSecret: '' } }), 'oidc.clientSecret');
    await expect400(admin.patch(path, { oidc: { ...oidc, scopes: ['openid profile'] } }), 'oidc.scopes');
    await expect400(admin.patch(path, { oidc: { clientId: 'x', clientSecret: SECRET } }), 'oidc.issuer');
    assert.deepEqual((await admin.get(path)).body.oidc.scopes, ['openid', 'email'], 'nothing refused was stored');

    const removed = await admin.patch(path, { oidc: null });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.oidc, undefined);
  });

  it("sends a visitor without a session to the provider's sign-in, back to the page they asked, and never elsewhere", async () => {
    const created = (await admin.post(sites(), { title: 'Signed in', visibility: 'visitor-auth', spaces: [space] })).body;
    const site = (await admin.post(`${sites()}/${created.id}/publish`)).body;
    const base = new URL(site.urls.published).pathname;
    const auth = `${sites()}/${site.id}/publishing/auth`;
    await admin.patch(auth, { fallbackURL: 'https://login.example.com/start' });
    assert.match((await visit(`${base}install`)).headers.get('location') ?? '', /^https:\/\/login\.example\.com\/start\?location=/);
    for (const address of ['~/auth/oidc/login', '~/auth/oidc/callback'])
      assert.equal((await visit(`${base}${address}`)).status, 404, `${address} without a provider`);

    // The provider set: the site's version moves, and the next visit goes to the sign-in at once.
    assert.equal((await admin.patch(auth, { oidc: { issuer: ISSUER, clientId: 'docs-site', clientSecret: SECRET } })).status, 200);
    const sent = await visit(`${base}install?tab=2`);
    assert.equal(sent.status, 302);
    assert.equal(sent.headers.get('location'), `${base}~/auth/oidc/login?location=${encodeURIComponent(`${base}install?tab=2`)}`);
    assert.equal(sent.headers.get('cache-control'), 'no-store');
    // A forged token in the address is still a 401, and agents (the MCP endpoint) are not redirected.
    assert.equal((await visit(`${base}install?jwt_token=forged`)).status, 401);
    const mcp = await fetch(`${stack.baseUrl}${base}~/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      redirect: 'manual',
    });
    assert.equal(mcp.status, 401);
    await mcp.arrayBuffer();

    // Signing out ends the session and goes to the logout URL when no provider has an end-session address to go to.
    await admin.patch(auth, { oidc: null, logoutURL: 'https://login.example.com/bye' });
    const out = await visit(`${base}~/auth/logout`);
    assert.equal(out.status, 302);
    assert.equal(out.headers.get('location'), 'https://login.example.com/bye');
    assert.match(out.headers.get('set-cookie') ?? '', new RegExp(`^quire_visitor=; Path=${base.replaceAll('/', '\\/')}; Expires=Thu, 01 Jan 1970`));
  });
});
