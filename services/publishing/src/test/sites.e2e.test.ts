import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient, assertMatchesOpenApi, startTestStack, type ApiClient, type TestStack, expectEvery } from '@quire/testkit';

const SITES_BASE_DOMAIN = 'docs.quire.test';

/** Sites, share links, visitor auth and adaptive schema, through the gateway. */
describe('publishing: sites through the gateway', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let reader: ApiClient;
  let guest: ApiClient;
  let outsider: ApiClient;
  let org: string;
  let otherOrg: string;
  let spaceA: string;
  let spaceB: string;
  const sites = () => `/v1/orgs/${org}/sites`;

  const expect400 = async (response: Promise<{ status: number; body: any }>, field: string) => {
    const { status, body } = await response;
    assert.equal(status, 400, `${field}: ${JSON.stringify(body)}`);
    assert.equal(body.error.code, 400);
    assert.match(body.error.message, new RegExp(`\\b${field.replaceAll('.', '\\.')}\\b`));
  };
  const newSpace = async (client: ApiClient, organizationId: string, title: string) => {
    const created = await client.post(`/v1/orgs/${organizationId}/spaces`, { title });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id as string;
  };

  beforeAll(async () => {
    stack = await startTestStack({ SITES_BASE_DOMAIN });
    const owner = await stack.account(['bootstrap', '--email', 'site-owner@example.com', '--org', 'Sites Org']);
    const other = await stack.account(['bootstrap', '--email', 'site-outsider@example.com', '--org', 'Other Org']);
    org = owner.organizationId;
    otherOrg = other.organizationId;
    admin = apiClient(stack.baseUrl, owner.token);
    outsider = apiClient(stack.baseUrl, other.token);
    reader = apiClient(stack.baseUrl, (await stack.account(['add-member', '--org', org, '--email', 'site-reader@example.com', '--role', 'read'])).token);
    guest = apiClient(stack.baseUrl, (await stack.account(['add-member', '--org', org, '--email', 'site-guest@example.com', '--role', 'guest'])).token);
    spaceA = await newSpace(admin, org, 'Guides');
    spaceB = await newSpace(admin, org, 'API Reference');
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a site (basic, unpublished) with its initial spaces as site spaces', async () => {
    const created = await admin.post(sites(), { title: 'Docs', spaces: [spaceA, spaceB] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const site = created.body;
    assert.equal(created.headers.get('location'), site.urls.location);
    assert.equal(site.object, 'site');
    assert.equal(site.type, 'basic');
    assert.equal(site.visibility, 'public');
    assert.equal(site.published, false);
    assert.equal(site.siteSpaces, 2);
    assert.equal(site.agentsContext, 'included');
    assert.deepEqual(site.adaptiveContent, { enabled: false });
    assert.equal(site.permissions.admin, true);
    assert.equal(site.urls.published, undefined, 'only published sites have a published address');
    assertMatchesOpenApi('Site', site);
    assert.deepEqual((await admin.get(`${sites()}/${site.id}`)).body, site);

    const spaces = await admin.get(`${sites()}/${site.id}/site-spaces`);
    assert.deepEqual(spaces.body.items.map((s: any) => s.space.id).sort(), [spaceA, spaceB].sort());

    const premium = await admin.post(sites(), { type: 'premium', title: 'Premium', visibility: 'unlisted' });
    assert.equal(premium.status, 201);
    assert.equal(premium.body.type, 'premium');
    assert.equal(premium.body.siteSpaces, 0);
    assert.equal((await admin.post(sites(), {})).status, 201, 'every field is optional');
  });

  it('validates site creation with 400 naming the field', async () => {
    await expect400(admin.post(sites(), { title: 'x' }), 'title');
    await expect400(admin.post(sites(), { title: 'y'.repeat(129) }), 'title');
    await expect400(admin.post(sites(), { visibility: 'private' }), 'visibility');
    await expect400(admin.post(sites(), { type: 'galactic' }), 'type');
    await expect400(admin.post(sites(), { spaces: 'nope' }), 'spaces');
    await expect400(admin.post(sites(), { title: 'Bad spaces', spaces: ['missing-space'] }), 'spaces');
    const foreign = await newSpace(outsider, otherOrg, 'Foreign');
    await expect400(admin.post(sites(), { title: 'Foreign spaces', spaces: [foreign] }), 'spaces');
  });

  it('lets members read, only admins write, and hides sites from guests and other organizations', async () => {
    const site = (await admin.post(sites(), { title: 'Guarded' })).body;
    const asReader = await reader.get(`${sites()}/${site.id}`);
    assert.equal(asReader.status, 200);
    assert.equal(asReader.body.permissions.admin, false);
    assert.equal(asReader.body.permissions.view, true);
    assert.equal(asReader.body.permissions.editAdaptiveSchema, false);
    assert.equal((await reader.get(sites())).status, 200);
    for (const response of [
      await reader.post(sites(), { title: 'Nope' }),
      await reader.patch(`${sites()}/${site.id}`, { title: 'Nope' }),
      await reader.delete(`${sites()}/${site.id}`),
      await reader.post(`${sites()}/${site.id}/publish`),
      await reader.post(`${sites()}/${site.id}/share-links`, { name: 'x' }),
      await reader.get(`${sites()}/${site.id}/share-links`),
      await reader.get(`${sites()}/${site.id}/publishing/auth`),
      await reader.put(`${sites()}/${site.id}/adaptive-schema`, { jsonSchema: {} }),
    ]) {
      assert.equal(response.status, 403, JSON.stringify(response.body));
      assert.equal(response.body.error.code, 403);
    }
    for (const client of [outsider, guest]) {
      assert.equal((await client.get(sites())).status, 404);
      assert.equal((await client.get(`${sites()}/${site.id}`)).status, 404);
      assert.equal((await client.patch(`${sites()}/${site.id}`, { title: 'Mine' })).status, 404);
      assert.equal((await client.delete(`${sites()}/${site.id}`)).status, 404);
    }
    // Addressed under the other organization, the site does not exist either.
    assert.equal((await outsider.get(`/v1/orgs/${otherOrg}/sites/${site.id}`)).status, 404);
    assert.equal((await admin.get(`${sites()}/missing-site`)).status, 404);
  });

  it('lists sites with space, title and published filters and keyset pages', async () => {
    const filtered = (await admin.post(sites(), { title: 'Filter Target', spaces: [spaceB] })).body;
    await admin.post(`${sites()}/${filtered.id}/publish`);
    const bySpace = await admin.get(`${sites()}?space=${spaceB}`);
    assert.ok(bySpace.body.items.some((s: any) => s.id === filtered.id));
    expectEvery(bySpace.body.items, (s: any) => s.siteSpaces > 0);
    const byTitle = await admin.get(`${sites()}?title=filter%20tar`);
    assert.deepEqual(
      byTitle.body.items.map((s: any) => s.id),
      [filtered.id],
    );
    const published = await admin.get(`${sites()}?published=true`);
    expectEvery(published.body.items, (s: any) => s.published);
    const unpublished = await admin.get(`${sites()}?published=false`);
    expectEvery(unpublished.body.items, (s: any) => !s.published);
    await expect400(admin.get(`${sites()}?published=maybe`), 'published');

    const all = await admin.get(sites());
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const response = await admin.get(`${sites()}?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.count, all.body.count);
      seen.push(...response.body.items.map((s: any) => s.id));
      page = response.body.next?.page;
    } while (page);
    assert.deepEqual(
      seen,
      all.body.items.map((s: any) => s.id),
    );
    assertMatchesOpenApi('List', all.body);
    await expect400(admin.get(`${sites()}?limit=1001`), 'limit');
    await expect400(admin.get(`${sites()}?page=garbage`), 'page');
  });

  it('updates a site within every limit and pattern of the spec, and computes its published address', async () => {
    const site = (await admin.post(sites(), { title: 'Patchable', spaces: [spaceA] })).body;
    const path = `${sites()}/${site.id}`;
    const patched = await admin.patch(path, {
      title: 'Patched',
      visibility: 'share-link',
      basename: 'handbook',
      agentsContext: 'excluded',
      adaptiveContent: { enabled: true },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.title, 'Patched');
    assert.equal(patched.body.visibility, 'share-link');
    assert.equal(patched.body.basename, 'handbook');
    assert.equal(patched.body.agentsContext, 'excluded');
    assert.deepEqual(patched.body.adaptiveContent, { enabled: true });
    assertMatchesOpenApi('Site', patched.body);

    await expect400(admin.patch(path, { title: 'x' }), 'title');
    await expect400(admin.patch(path, { title: 't'.repeat(129) }), 'title');
    await expect400(admin.patch(path, { basename: '' }), 'basename');
    await expect400(admin.patch(path, { basename: 'b'.repeat(101) }), 'basename');
    await expect400(admin.patch(path, { hostname: 'localhost' }), 'hostname');
    await expect400(admin.patch(path, { hostname: `${'a'.repeat(60)}.`.repeat(9) + 'com' }), 'hostname');
    // IP literals, in every form a browser reads as one (the last label a number).
    for (const address of ['127.0.0.10', '192.168.100.200', '0x7f.0.0.01', '0177.0.0.10', 'docs.example.10'])
      await expect400(admin.patch(path, { hostname: address }), 'hostname');
    assert.equal((await admin.patch(path, { hostname: 'v2.docs10.example.com' })).body.hostname, 'v2.docs10.example.com', 'digits elsewhere are fine');
    assert.equal((await admin.patch(path, { hostname: null })).body.hostname, undefined);
    await expect400(admin.patch(path, { proxy: 'example.com' }), 'proxy');
    await expect400(admin.patch(path, { proxy: `example.com/${'d'.repeat(520)}` }), 'proxy');
    await expect400(admin.patch(path, { agentsContext: 'sometimes' }), 'agentsContext');
    await expect400(admin.patch(path, { adaptiveContent: { enabled: 'yes' } }), 'adaptiveContent.enabled');
    await expect400(admin.patch(path, { visibility: 'in-collection' }), 'visibility');

    // Defaults must belong to this very site.
    const other = (await admin.post(sites(), { title: 'Other', spaces: [spaceB] })).body;
    const otherSiteSpace = (await admin.get(`${sites()}/${other.id}/site-spaces`)).body.items[0].id;
    await expect400(admin.patch(path, { defaultSiteSpace: otherSiteSpace }), 'defaultSiteSpace');
    await expect400(admin.patch(path, { defaultSiteSection: 'no-such-section' }), 'defaultSiteSection');
    const own = (await admin.get(`${path}/site-spaces`)).body.items[0].id;
    assert.equal((await admin.patch(path, { defaultSiteSpace: own })).status, 200);

    // Published address: ours (organization + basename), then the custom hostname or proxy.
    const published = await admin.post(`${path}/publish`);
    assert.equal(published.status, 200);
    assert.equal(published.body.published, true);
    assert.equal(published.body.urls.published, `https://${SITES_BASE_DOMAIN}/${org}/handbook/`);
    assertMatchesOpenApi('Site', published.body);
    const proxied = await admin.patch(path, { proxy: 'example.com/docs' });
    assert.deepEqual(proxied.body.proxy, { origin: 'example.com/docs', target: `https://${SITES_BASE_DOMAIN}/${org}/handbook/` });
    assert.equal(proxied.body.urls.published, 'https://example.com/docs/');
    const unproxied = await admin.patch(path, { proxy: null, hostname: 'docs.example.com' });
    assert.equal(unproxied.body.proxy, undefined);
    assert.equal(unproxied.body.urls.published, 'https://docs.example.com/');
    const unpublished = await admin.post(`${path}/unpublish`);
    assert.equal(unpublished.body.published, false);
    assert.equal(unpublished.body.urls.published, undefined);
  });

  it('manages share links with server-generated keys', async () => {
    const site = (await admin.post(sites(), { title: 'Shared', visibility: 'share-link' })).body;
    const links = `${sites()}/${site.id}/share-links`;
    await expect400(admin.post(links, {}), 'name');
    await expect400(admin.post(links, { name: 'n'.repeat(51) }), 'name');
    const created = await admin.post(links, { name: 'Partners', key: 'chosen-by-client' });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), `${stack.baseUrl}${links}/${created.body.id}`);
    assert.equal(created.body.object, 'share-link');
    assert.equal(created.body.name, 'Partners');
    assert.equal(created.body.active, true);
    const key = new URL(created.body.urls.published).searchParams.get('share');
    assert.ok(key && key.length >= 20 && key !== 'chosen-by-client');
    assertMatchesOpenApi('ShareLink', created.body);

    const patched = await admin.patch(`${links}/${created.body.id}`, { active: false, name: 'Former partners' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.active, false);
    assert.equal(patched.body.name, 'Former partners');
    await expect400(admin.patch(`${links}/${created.body.id}`, { active: 'no' }), 'active');
    await expect400(admin.patch(`${links}/${created.body.id}`, { name: 'n'.repeat(51) }), 'name');
    assert.equal((await admin.patch(`${links}/missing`, { active: true })).status, 404);

    const listed = await admin.get(links);
    assert.equal(listed.body.count, 1);
    assert.deepEqual(listed.body.items[0], patched.body);
    assert.equal((await admin.delete(`${links}/${created.body.id}`)).status, 204);
    assert.equal((await admin.delete(`${links}/${created.body.id}`)).status, 204, 'deleting twice is fine');
    assert.equal((await admin.get(links)).body.count, 0);
    assert.equal((await outsider.get(links)).status, 404);
  });

  it("resolves a space's published address from a share key on GET /v1/spaces/{id}", async () => {
    const site = (await admin.post(sites(), { title: 'Shared space', visibility: 'share-link', spaces: [spaceA] })).body;
    assert.equal((await admin.post(`${sites()}/${site.id}/publish`)).status, 200);
    const link = (await admin.post(`${sites()}/${site.id}/share-links`, { name: 'Readers' })).body;
    const key = new URL(link.urls.published).searchParams.get('share')!;

    const plain = await reader.get(`/v1/spaces/${spaceA}`);
    assert.equal(plain.status, 200);
    assert.equal(plain.body.urls.published, undefined);
    const shared = await reader.get(`/v1/spaces/${spaceA}?shareKey=${encodeURIComponent(key)}`);
    assert.equal(shared.status, 200, JSON.stringify(shared.body));
    assert.equal(new URL(shared.body.urls.published).searchParams.get('share'), key);
    assertMatchesOpenApi('Space', shared.body);

    // A key of a site that does not show the space, an unknown key and an inactive one resolve nothing.
    await expect400(reader.get(`/v1/spaces/${spaceB}?shareKey=${encodeURIComponent(key)}`), 'shareKey');
    await expect400(reader.get(`/v1/spaces/${spaceA}?shareKey=not-a-key`), 'shareKey');
    await admin.patch(`${sites()}/${site.id}/share-links/${link.id}`, { active: false });
    await expect400(reader.get(`/v1/spaces/${spaceA}?shareKey=${encodeURIComponent(key)}`), 'shareKey');
    assert.equal((await outsider.get(`/v1/spaces/${spaceA}?shareKey=${encodeURIComponent(key)}`)).status, 404);
  });

  it('keeps an adaptive schema of boolean claims and derives template conditions from it', async () => {
    const site = (await admin.post(sites(), { title: 'Adaptive' })).body;
    const path = `${sites()}/${site.id}/adaptive-schema`;
    const initial = await admin.get(path);
    assert.equal(initial.status, 200);
    assert.equal(initial.body.object, 'site-adaptive-schema');
    assertMatchesOpenApi('SiteAdaptiveSchema', initial.body);
    assert.equal((await reader.get(path)).status, 200);

    const jsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        beta: { type: 'boolean', description: 'Beta program' },
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { internal: { type: 'boolean', description: 'Staff' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    const saved = await admin.put(path, { jsonSchema });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual(saved.body.jsonSchema, jsonSchema);
    assertMatchesOpenApi('SiteAdaptiveSchema', saved.body);
    assert.deepEqual((await admin.get(path)).body, saved.body);

    await expect400(admin.put(path, {}), 'jsonSchema');
    await expect400(admin.put(path, { jsonSchema: { type: 'object', properties: { beta: { type: 'string' } }, additionalProperties: false } }), 'jsonSchema');
    await expect400(admin.put(path, { jsonSchema: { type: 'object', properties: {} } }), 'jsonSchema');
    await expect400(
      admin.put(path, { jsonSchema: { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta', enum: 5 } }, additionalProperties: false } }),
      'jsonSchema',
    );

    const templates = await admin.get(`${path}/template-conditions`);
    assert.equal(templates.status, 200);
    const conditions = templates.body.items.map((t: any) => t.condition);
    assert.ok(conditions.includes('visitor.claims.beta === true'));
    assert.ok(conditions.includes('visitor.claims.unsigned.internal === true'));
    for (const item of templates.body.items) assertMatchesOpenApi('SiteAdaptiveTemplateCondition', item);
  });

  it('gives admins the visitor-auth signing key and regenerates it', async () => {
    const site = (await admin.post(sites(), { title: 'Members only', visibility: 'visitor-auth' })).body;
    const path = `${sites()}/${site.id}/publishing/auth`;
    const auth = await admin.get(path);
    assert.equal(auth.status, 200);
    assert.equal(auth.body.object, 'publishing-auth');
    assert.equal(auth.body.backend, 'custom');
    assert.ok(auth.body.privateKey.length >= 32);
    assertMatchesOpenApi('SitePublishingAuth', auth.body);
    const patched = await admin.patch(path, { fallbackURL: 'https://example.com/login' });
    assert.equal(patched.body.fallbackURL, 'https://example.com/login');
    await expect400(admin.patch(path, { fallbackURL: 'not a url' }), 'fallbackURL');

    // Visitors are sent to these addresses: only http(s) ones are stored, anything that runs is a 400.
    const executable = [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)//https://example.com',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'ftp://example.com/login',
    ];
    for (const field of ['fallbackURL', 'logoutURL']) {
      for (const url of executable) await expect400(admin.patch(path, { [field]: url }), field);
      const saved = await admin.patch(path, { [field]: `http://example.com/${field}` });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.equal(saved.body[field], `http://example.com/${field}`);
    }
    const stored = (await admin.get(path)).body;
    assert.deepEqual(
      [stored.fallbackURL, stored.logoutURL],
      ['http://example.com/fallbackURL', 'http://example.com/logoutURL'],
      'refused addresses changed nothing',
    );
    assertMatchesOpenApi('SitePublishingAuth', stored);
    const cleared = await admin.patch(path, { fallbackURL: null, logoutURL: null });
    assert.deepEqual([cleared.body.fallbackURL, cleared.body.logoutURL], [undefined, undefined]);

    const regenerated = await admin.post(`${path}/regenerate`);
    assert.equal(regenerated.status, 200);
    assert.notEqual(regenerated.body.privateKey, auth.body.privateKey);
    assert.equal((await admin.get(path)).body.privateKey, regenerated.body.privateKey);
  });

  it('deletes a site with everything in it (204, also when already gone)', async () => {
    const site = (await admin.post(sites(), { title: 'Doomed', spaces: [spaceA] })).body;
    const base = `${sites()}/${site.id}`;
    const other = (await admin.post(`/v1/orgs/${org}/spaces`, { title: 'Doomed section space' })).body.id;
    for (const [path, body] of [
      ['sections', { spaceId: other, title: 'Doomed section' }],
      ['section-groups', { title: 'Doomed group' }],
      ['share-links', { name: 'Doomed link' }],
    ] as const) {
      assert.equal((await admin.post(`${base}/${path}`, body)).status, 201, path);
    }
    // What the site holds, in publishing's own database: all of it goes with the site.
    const db = await stack.serviceDatabase('publishing');
    const held = () =>
      Promise.all(
        ['sites', 'site_sections', 'site_section_groups', 'site_spaces', 'share_links'].map((name) =>
          db.collection(name).countDocuments(name === 'sites' ? { _id: site.id } : { siteId: site.id }),
        ),
      );
    try {
      const before = await held();
      assert.ok(
        before.every((count) => count > 0),
        `the site holds something of every kind: ${before}`,
      );
      assert.equal((await admin.delete(`${sites()}/${site.id}`)).status, 204);
      assert.deepEqual(await held(), [0, 0, 0, 0, 0]);
    } finally {
      await db.close();
    }
    assert.equal((await admin.get(`${sites()}/${site.id}`)).status, 404);
    assert.equal((await admin.get(`${sites()}/${site.id}/site-spaces`)).status, 404);
    assert.equal((await admin.delete(`${sites()}/${site.id}`)).status, 204);
    assert.equal((await admin.delete(`${sites()}/never-existed`)).status, 204);
  });
});
