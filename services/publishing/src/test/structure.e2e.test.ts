import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import jwt from 'jsonwebtoken';
import { apiClient, assertMatchesOpenApi, sharedTestStack, type ApiClient, type TestStack, expectEvery } from '@quire/testkit';

/** Sections, section groups, site spaces, ordering and the published structure, through the gateway. */
describe('publishing: site structure through the gateway', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let reader: ApiClient;
  let outsider: ApiClient;
  let org: string;
  let ownerToken: string;
  const spaces: Record<string, string> = {};
  const siteUrl = (siteId: string) => `/v1/orgs/${org}/sites/${siteId}`;

  const expect400 = async (response: Promise<{ status: number; body: any }>, field: string) => {
    const { status, body } = await response;
    assert.equal(status, 400, `${field}: ${JSON.stringify(body)}`);
    assert.match(body.error.message, new RegExp(`\\b${field.replaceAll('.', '\\.')}\\b`));
  };
  const newSite = async (body: Record<string, unknown>) => {
    const created = await admin.post(`/v1/orgs/${org}/sites`, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id as string;
  };
  const items = async (client: ApiClient, path: string) => {
    const response = await client.get(path);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.items as any[];
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const owner = await stack.account(['bootstrap', '--email', 'structure-owner@example.com', '--org', 'Structure Org']);
    const other = await stack.account(['bootstrap', '--email', 'structure-outsider@example.com', '--org', 'Elsewhere']);
    org = owner.organizationId;
    ownerToken = owner.token;
    admin = apiClient(stack.baseUrl, owner.token);
    outsider = apiClient(stack.baseUrl, other.token);
    reader = apiClient(stack.baseUrl, (await stack.account(['add-member', '--org', org, '--email', 'structure-reader@example.com', '--role', 'read'])).token);
    for (const title of ['Guides', 'Guides v2', 'API', 'SDK', 'Changelog', 'Internal', 'Legacy']) {
      const created = await admin.post(`/v1/orgs/${org}/spaces`, { title });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      spaces[title] = created.body.id;
    }
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('adds site spaces at the root, edits, filters and reorders them', async () => {
    const site = await newSite({ title: 'Root site', spaces: [spaces.Guides] });
    const path = `${siteUrl(site)}/site-spaces`;
    const added = await admin.post(path, { spaceId: spaces['Guides v2'] });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.headers.get('location'), `${stack.baseUrl}${path}/${added.body.id}`);
    assert.equal(added.body.object, 'site-space');
    assert.equal(added.body.section, undefined, 'a site without sections keeps its site spaces at the root');
    assert.equal(added.body.space.id, spaces['Guides v2']);
    assert.equal(added.body.title, 'Guides v2');
    assert.equal(added.body.path, 'guides-v2');
    assert.equal(added.body.default, false);
    assertMatchesOpenApi('SiteSpace', added.body);
    await expect400(admin.post(path, {}), 'spaceId');
    await expect400(admin.post(path, { spaceId: 'missing-space' }), 'spaceId');
    await expect400(admin.post(path, { spaceId: spaces.API, sectionId: 'missing-section' }), 'sectionId');

    const [first] = await items(admin, `${path}?default=true`);
    assert.equal(first.space.id, spaces.Guides, 'the first site space is the default');
    assert.deepEqual(
      (await items(admin, `${path}?default=false`)).map((s) => s.id),
      [added.body.id],
    );
    await expect400(admin.get(`${path}?default=perhaps`), 'default');

    const patched = await admin.patch(`${path}/${added.body.id}`, { path: 'v2', condition: 'visitor.claims.beta === true' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.path, 'v2');
    assert.equal(patched.body.condition, 'visitor.claims.beta === true');
    assert.equal(
      (await admin.patch(`${path}/${added.body.id}`, { path: 'v3' })).body.condition,
      'visitor.claims.beta === true',
      'omitted condition: unchanged',
    );
    assert.equal((await admin.patch(`${path}/${added.body.id}`, { condition: null })).body.condition, undefined, 'null removes it');
    await expect400(admin.patch(`${path}/${added.body.id}`, { condition: 'visitor.claims.beta ===' }), 'condition');
    await expect400(admin.patch(`${path}/${added.body.id}`, { condition: `visitor.claims.a == ${'1'.repeat(1030)}` }), 'condition');
    await expect400(admin.patch(`${path}/${added.body.id}`, { path: '' }), 'path');
    await expect400(admin.patch(`${path}/${added.body.id}`, { path: 'p'.repeat(101) }), 'path');
    const clash = await admin.patch(`${path}/${added.body.id}`, { path: first.path });
    assert.equal(clash.status, 409, 'paths are unique among the variants of one section');
    assert.match(clash.body.error.message, /\bpath\b/);
    const retargeted = await admin.patch(`${path}/${added.body.id}`, { spaceId: spaces.Legacy });
    assert.equal(retargeted.body.space.id, spaces.Legacy);
    await expect400(admin.patch(`${path}/${added.body.id}`, { spaceId: 'missing-space' }), 'spaceId');

    // Deprecated move: reorders and the list follows.
    const third = (await admin.post(path, { spaceId: spaces.API })).body;
    const order = async () => (await items(admin, path)).map((s) => s.id);
    assert.deepEqual(await order(), [first.id, added.body.id, third.id]);
    const moved = await admin.post(`${path}/${third.id}/move`, { position: { before: { type: 'site-space', siteSpace: first.id } } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(await order(), [third.id, first.id, added.body.id]);
    await admin.post(`${path}/${third.id}/move`, { position: { after: { type: 'site-space', siteSpace: added.body.id } } });
    assert.deepEqual(await order(), [first.id, added.body.id, third.id]);
    const both = { before: { type: 'site-space', siteSpace: first.id }, after: { type: 'site-space', siteSpace: first.id } };
    await expect400(admin.post(`${path}/${third.id}/move`, { position: both }), 'position');
    assert.equal((await admin.post(`${path}/${first.id}/move`, {})).status, 200, 'no position: to the end');
    assert.deepEqual(await order(), [added.body.id, third.id, first.id]);
    await admin.post(`${path}/${first.id}/move`, { position: { before: { type: 'site-space', siteSpace: added.body.id } } });
    await expect400(admin.post(`${path}/${third.id}/move`, { position: { before: { type: 'site-space', siteSpace: 'nope' } } }), 'position.before.siteSpace');

    // Pages follow the same order.
    const page1 = await admin.get(`${path}?limit=2`);
    const page2 = await admin.get(`${path}?limit=2&page=${encodeURIComponent(page1.body.next.page)}`);
    assert.equal(page1.body.count, 3);
    assert.deepEqual(
      [...page1.body.items, ...page2.body.items].map((s: any) => s.id),
      [first.id, added.body.id, third.id],
    );
    assert.equal(page2.body.next, undefined);

    assert.equal((await admin.delete(`${path}/${third.id}`)).status, 204);
    assert.equal((await admin.delete(`${path}/${third.id}`)).status, 204);
    assert.equal((await admin.get(siteUrl(site))).body.siteSpaces, 2);
    assert.equal((await reader.get(path)).status, 200);
    assert.equal((await reader.post(path, { spaceId: spaces.SDK })).status, 403);
    assert.equal((await outsider.get(path)).status, 404);
  });

  it('embeds Space objects showing the default level in force, not the stored inherit', async () => {
    const shelf = await admin.post(`/v1/orgs/${org}/collections`, { title: 'Comment shelf' });
    assert.equal(shelf.status, 201, JSON.stringify(shelf.body));
    assert.equal((await admin.patch(`/v1/collections/${shelf.body.id}`, { defaultLevel: 'comment' })).status, 200);
    const shelved = await admin.post(`/v1/orgs/${org}/spaces`, { title: 'Shelved', parent: shelf.body.id });
    assert.equal(shelved.status, 201, JSON.stringify(shelved.body));
    const site = await newSite({ title: 'Levels site', spaces: [spaces.Guides, shelved.body.id] });
    for (const client of [admin, reader]) {
      const embedded = (await items(client, `${siteUrl(site)}/site-spaces`)).map((s) => s.space);
      assert.deepEqual(
        embedded.map((space) => [space.id, space.defaultLevel, space.defaultLevelInherited]),
        [
          [spaces.Guides, 'admin', true],
          [shelved.body.id, 'comment', true],
        ],
      );
      embedded.forEach((space) => assertMatchesOpenApi('Space', space));
    }
  });

  it('gathers root site spaces into a default section when the first section is created', async () => {
    const site = await newSite({ title: 'Product docs', spaces: [spaces.Guides, spaces['Guides v2']] });
    const sections = `${siteUrl(site)}/sections`;
    const created = await admin.post(sections, { spaceId: spaces.API, title: 'API reference', icon: 'code' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers.get('location'), `${stack.baseUrl}${sections}/${created.body.id}`);
    assert.equal(created.body.object, 'site-section');
    assert.equal(created.body.title, 'API reference');
    assert.equal(created.body.icon, 'code');
    assert.equal(created.body.default, false);
    assert.deepEqual(
      created.body.siteSpaces.map((s: any) => s.space.id),
      [spaces.API],
    );
    assert.equal(created.body.siteSpaces[0].default, true);
    assertMatchesOpenApi('SiteSection', created.body);

    const listed = await items(admin, sections);
    assert.equal(listed.length, 2);
    const [gathered, api] = listed;
    assert.equal(gathered.title, 'Product docs');
    assert.equal(gathered.default, true);
    assert.deepEqual(
      gathered.siteSpaces.map((s: any) => s.space.id),
      [spaces.Guides, spaces['Guides v2']],
    );
    expectEvery(gathered.siteSpaces, (s: any) => s.section === gathered.id);
    assert.equal(api.id, created.body.id);
    assert.equal(listed.filter((s) => s.default).length, 1, 'exactly one default section');

    await expect400(admin.post(sections, {}), 'spaceId');
    await expect400(admin.post(sections, { spaceId: spaces.SDK, title: 'x' }), 'title');
    await expect400(admin.post(sections, { spaceId: spaces.SDK, title: 't'.repeat(129) }), 'title');
    await expect400(admin.post(sections, { spaceId: spaces.SDK, icon: 'i'.repeat(51) }), 'icon');
    await expect400(admin.post(sections, { spaceId: 'missing-space' }), 'spaceId');
    const untitled = await admin.post(sections, { spaceId: spaces.SDK, title: null });
    assert.equal(untitled.body.title, 'SDK', 'no title: the space title');

    // A new site space without a section goes to the default section; with one, into it.
    const intoDefault = await admin.post(`${siteUrl(site)}/site-spaces`, { spaceId: spaces.Changelog });
    assert.equal(intoDefault.body.section, gathered.id);
    const intoApi = await admin.post(`${siteUrl(site)}/site-spaces`, { spaceId: spaces.Legacy, sectionId: api.id });
    assert.equal(intoApi.body.section, api.id);

    // PATCH: every field and limit; the default section and variant switch as a whole.
    const apiPath = `${sections}/${api.id}`;
    const patched = await admin.patch(apiPath, {
      title: 'API',
      path: 'api',
      condition: 'visitor.claims.developer === true',
      icon: 'terminal',
      description: 'Endpoints',
      defaultSiteSpace: intoApi.body.id,
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.path, 'api');
    assert.equal(patched.body.condition, 'visitor.claims.developer === true');
    assert.equal(patched.body.description, 'Endpoints');
    assert.equal(patched.body.siteSpaces.find((s: any) => s.default).id, intoApi.body.id);
    assert.equal(patched.body.siteSpaces.filter((s: any) => s.default).length, 1);
    const cleared = await admin.patch(apiPath, { icon: null, description: null, condition: null });
    assert.equal(cleared.body.icon, undefined);
    assert.equal(cleared.body.description, undefined);
    assert.equal(cleared.body.condition, undefined);
    assert.equal((await admin.patch(apiPath, { condition: 'visitor.claims.developer' })).body.condition, 'visitor.claims.developer');
    assert.equal((await admin.patch(apiPath, { title: 'API v1' })).body.condition, 'visitor.claims.developer', 'omitted condition: unchanged');
    await expect400(admin.patch(apiPath, { title: 'x' }), 'title');
    await expect400(admin.patch(apiPath, { title: 't'.repeat(129) }), 'title');
    await expect400(admin.patch(apiPath, { path: '' }), 'path');
    await expect400(admin.patch(apiPath, { path: 'p'.repeat(101) }), 'path');
    await expect400(admin.patch(apiPath, { icon: 'i'.repeat(51) }), 'icon');
    await expect400(admin.patch(apiPath, { description: 'd'.repeat(257) }), 'description');
    await expect400(admin.patch(apiPath, { condition: 'c'.repeat(1025) }), 'condition');
    await expect400(admin.patch(apiPath, { condition: 'fetch("http://x")' }), 'condition');
    await expect400(admin.patch(apiPath, { defaultSiteSpace: intoDefault.body.id }), 'defaultSiteSpace');
    const clash = await admin.patch(apiPath, { path: gathered.path });
    assert.equal(clash.status, 409, 'section paths are unique within the site');
    assert.match(clash.body.error.message, /\bpath\b/);

    const switched = await admin.patch(siteUrl(site), { defaultSiteSection: api.id });
    assert.equal(switched.status, 200);
    const after = await items(admin, sections);
    assert.deepEqual(
      after.filter((s) => s.default).map((s) => s.id),
      [api.id],
    );
    const otherSite = await newSite({ title: 'Other sectioned' });
    const foreignSection = (await admin.post(`${siteUrl(otherSite)}/sections`, { spaceId: spaces.SDK })).body.id;
    await expect400(admin.patch(siteUrl(site), { defaultSiteSection: foreignSection }), 'defaultSiteSection');

    // Deprecated move keeps working.
    const order = async () => (await items(admin, sections)).map((s) => s.id);
    const sdk = untitled.body.id;
    assert.deepEqual(await order(), [gathered.id, api.id, sdk]);
    const moved = await admin.post(`${sections}/${sdk}/move`, { position: { before: { type: 'site-section', siteSection: gathered.id } } });
    assert.equal(moved.status, 200);
    assert.deepEqual(await order(), [sdk, gathered.id, api.id]);
    await admin.post(`${sections}/${sdk}/move`, { position: { after: { type: 'site-section', siteSection: gathered.id } } });
    assert.deepEqual(await order(), [gathered.id, sdk, api.id]);
    await expect400(admin.post(`${sections}/${sdk}/move`, { position: { before: { type: 'site-space', siteSection: api.id } } }), 'position.before.type');

    assert.equal((await admin.delete(`${sections}/${sdk}`)).status, 204);
    assert.equal((await admin.delete(`${sections}/${sdk}`)).status, 204);
    assert.deepEqual(await order(), [gathered.id, api.id]);
    assert.equal((await reader.get(sections)).status, 200);
    assert.equal((await reader.patch(apiPath, { title: 'Nope' })).status, 403);
    assert.equal((await outsider.get(sections)).status, 404);
    assert.equal((await admin.patch(`${sections}/missing`, { title: 'Missing' })).status, 404);
  });

  it('groups sections, nests groups, and moves groups', async () => {
    const site = await newSite({ title: 'Grouped site' });
    const sections = `${siteUrl(site)}/sections`;
    const groups = `${siteUrl(site)}/section-groups`;
    const s1 = (await admin.post(sections, { spaceId: spaces.Guides })).body.id;
    const s2 = (await admin.post(sections, { spaceId: spaces.API })).body.id;
    const s3 = (await admin.post(sections, { spaceId: spaces.SDK })).body.id;

    const created = await admin.post(groups, { title: 'Developers', icon: 'code', sections: [s2, s3] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.object, 'site-section-group');
    assert.deepEqual(
      created.body.children.map((c: any) => c.id),
      [s2, s3],
    );
    expectEvery(created.body.children, (c: any) => c.sectionGroup === created.body.id);
    assertMatchesOpenApi('SiteSectionGroup', created.body);
    const nested = await admin.post(groups, { title: 'Legacy', parent: created.body.id });
    assert.equal(nested.status, 201);
    assert.equal(nested.body.sectionGroup, created.body.id);
    await expect400(admin.post(groups, {}), 'title');
    await expect400(admin.post(groups, { title: '' }), 'title');
    await expect400(admin.post(groups, { title: 't'.repeat(101) }), 'title');
    await expect400(admin.post(groups, { title: 'Iconic', icon: 'i'.repeat(51) }), 'icon');
    await expect400(admin.post(groups, { title: 'Bad parent', parent: 'missing' }), 'parent');
    await expect400(admin.post(groups, { title: 'Bad sections', sections: ['missing'] }), 'sections');

    const group = `${groups}/${created.body.id}`;
    const withNested = (await items(admin, groups)).find((g) => g.id === created.body.id);
    assert.deepEqual(
      withNested.children.map((c: any) => c.id),
      [s2, s3, nested.body.id],
    );

    const patched = await admin.patch(group, { title: 'Developer docs', icon: null });
    assert.equal(patched.body.title, 'Developer docs');
    assert.equal(patched.body.icon, undefined);
    await expect400(admin.patch(group, { title: '' }), 'title');
    await expect400(admin.patch(group, { title: 't'.repeat(101) }), 'title');
    await expect400(admin.patch(group, { icon: 'i'.repeat(51) }), 'icon');

    // Add / remove a section; removing one that is not in the group is still a 204.
    const addedTo = await admin.post(`${group}/sections`, { sectionId: s1 });
    assert.equal(addedTo.status, 201);
    assert.ok(addedTo.body.children.some((c: any) => c.id === s1));
    await expect400(admin.post(`${group}/sections`, {}), 'sectionId');
    await expect400(admin.post(`${group}/sections`, { sectionId: 'missing' }), 'sectionId');
    assert.equal((await admin.delete(`${group}/sections/${s1}`)).status, 204);
    assert.equal((await admin.delete(`${group}/sections/${s1}`)).status, 204);
    assert.equal((await admin.delete(`${group}/sections/never-there`)).status, 204);
    assert.equal((await admin.get(`${sections}`)).body.items.find((s: any) => s.id === s1).sectionGroup, undefined);

    // Deprecated group move: before/after a section or group of the same level.
    const published = async () => (await admin.get(`${siteUrl(site)}/published`)).body.structure.structure.map((c: any) => c.id);
    assert.deepEqual(await published(), [s1, created.body.id]);
    const moved = await admin.post(`${group}/move`, { position: { before: { type: 'site-section', id: s1 } } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(await published(), [created.body.id, s1]);
    await expect400(admin.post(`${group}/move`, { position: { after: { type: 'site-section', id: s2 } } }), 'position.after.id');

    // Deleting a group keeps its sections: they move up a level.
    assert.equal((await admin.delete(group)).status, 204);
    assert.equal((await admin.delete(group)).status, 204);
    const remaining = await items(admin, sections);
    assert.deepEqual(remaining.map((s) => s.id).sort(), [s1, s2, s3].sort());
    expectEvery(remaining, (s) => s.sectionGroup === undefined);
    const left = await items(admin, groups);
    assert.deepEqual(
      left.map((g) => [g.id, g.sectionGroup]),
      [[nested.body.id, undefined]],
    );
    assert.equal((await reader.post(groups, { title: 'Nope' })).status, 403);
    assert.equal((await outsider.get(groups)).status, 404);
  });

  it('publishes the structure, resolving share keys and hiding what conditions exclude', async () => {
    const site = await newSite({ title: 'Published docs', visibility: 'share-link' });
    const sections = `${siteUrl(site)}/sections`;
    const open = (await admin.post(sections, { spaceId: spaces.Guides, title: 'Guides' })).body;
    const beta = (await admin.post(sections, { spaceId: spaces.API, title: 'Beta API' })).body;
    await admin.patch(`${sections}/${beta.id}`, { path: 'beta', condition: 'visitor.claims.beta === true' });
    await admin.patch(siteUrl(site), { basename: 'published-docs' });
    await admin.post(`${siteUrl(site)}/publish`);

    const content = await admin.get(`${siteUrl(site)}/published`);
    assert.equal(content.status, 200, JSON.stringify(content.body));
    assert.equal(content.body.object, 'published-content-site');
    assert.equal(content.body.site.id, site);
    assertMatchesOpenApi('Site', content.body.site);
    assert.equal(content.body.structure.type, 'sections');
    assert.deepEqual(
      content.body.structure.structure.map((s: any) => s.id),
      [open.id],
      'no claims: the beta section is hidden',
    );
    const [section] = content.body.structure.structure;
    assert.deepEqual(
      section.siteSpaces.map((s: any) => s.space.id),
      [spaces.Guides],
    );
    assert.ok(section.urls.published.startsWith(`${stack.baseUrl}/sites/${org}/`), 'no sites domain set: under the gateway');

    const link = (await admin.post(`${siteUrl(site)}/share-links`, { name: 'Reviewers' })).body;
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const shared = await admin.get(`${siteUrl(site)}/published?shareKey=${encodeURIComponent(key)}`);
    assert.equal(shared.status, 200);
    assert.ok(shared.body.site.urls.published.endsWith(`?share=${encodeURIComponent(key)}`));
    assert.ok(shared.body.structure.structure[0].siteSpaces[0].urls.published.includes(`share=${encodeURIComponent(key)}`));
    const sharedSections = await admin.get(`${sections}?shareKey=${encodeURIComponent(key)}`);
    expectEvery(sharedSections.body.items, (s: any) => s.urls.published.includes('share='));
    const sharedSpaces = await admin.get(`${siteUrl(site)}/site-spaces?shareKey=${encodeURIComponent(key)}`);
    expectEvery(sharedSpaces.body.items, (s: any) => s.urls.published.includes('share='));

    // Unknown keys, keys of another site and inactive links resolve nothing: 400 naming shareKey.
    await expect400(admin.get(`${siteUrl(site)}/published?shareKey=unknown`), 'shareKey');
    const otherSite = await newSite({ title: 'Other shared', visibility: 'share-link' });
    const otherLink = (await admin.post(`${siteUrl(otherSite)}/share-links`, { name: 'Theirs' })).body;
    await expect400(admin.get(`${sections}?shareKey=${new URL(otherLink.urls.published).searchParams.get('share')}`), 'shareKey');
    await admin.patch(`${siteUrl(site)}/share-links/${link.id}`, { active: false });
    await expect400(admin.get(`${siteUrl(site)}/site-spaces?shareKey=${encodeURIComponent(key)}`), 'shareKey');

    assert.equal((await reader.get(`${siteUrl(site)}/published`)).status, 200);
    assert.equal((await outsider.get(`${siteUrl(site)}/published`)).status, 404);
  });

  it('requires a visitor token signed with the site key on visitor-auth sites and evaluates conditions on its claims', async () => {
    const site = await newSite({ title: 'Members area', visibility: 'visitor-auth' });
    const sections = `${siteUrl(site)}/sections`;
    const everyone = (await admin.post(sections, { spaceId: spaces.Guides, title: 'Everyone' })).body;
    const staff = (await admin.post(sections, { spaceId: spaces.Internal, title: 'Staff only' })).body;
    await admin.patch(`${sections}/${staff.id}`, { condition: 'visitor.claims.unsigned.staff == true || visitor.claims.role == "staff"' });
    // Inside the open section, one variant for beta testers only.
    const betaVariant = (await admin.post(`${siteUrl(site)}/site-spaces`, { spaceId: spaces['Guides v2'], sectionId: everyone.id })).body;
    await admin.patch(`${siteUrl(site)}/site-spaces/${betaVariant.id}`, { condition: 'visitor.claims.beta === true' });

    const { privateKey } = (await admin.get(`${siteUrl(site)}/publishing/auth`)).body;
    const published = (query: string) => admin.get(`${siteUrl(site)}/published${query}`);

    const missing = await published('');
    assert.equal(missing.status, 403);
    assert.match(missing.body.error.message, /visitorAuthToken/);
    const forged = await published(`?visitorAuthToken=${jwt.sign({ role: 'staff' }, 'not-the-site-key')}`);
    assert.equal(forged.status, 403);
    const expired = await published(`?visitorAuthToken=${jwt.sign({ role: 'staff', exp: 1 }, privateKey)}`);
    assert.equal(expired.status, 403);

    const shape = (body: any) => body.structure.structure.map((s: any) => [s.title, s.siteSpaces.map((v: any) => v.space.id)]);
    const plain = await published(`?visitorAuthToken=${jwt.sign({ role: 'visitor' }, privateKey)}`);
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual(shape(plain.body), [['Everyone', [spaces.Guides]]]);
    const insider = await published(`?visitorAuthToken=${jwt.sign({ role: 'staff', beta: true }, privateKey)}`);
    assert.deepEqual(shape(insider.body), [
      ['Everyone', [spaces.Guides, spaces['Guides v2']]],
      ['Staff only', [spaces.Internal]],
    ]);
    const viaSiteParameter = await published(`?jwt_token=${jwt.sign({ unsigned: { staff: true } }, privateKey)}`);
    assert.deepEqual(
      shape(viaSiteParameter.body).map(([title]: [string]) => title),
      ['Everyone', 'Staff only'],
    );

    // A regenerated key invalidates tokens signed with the old one.
    await admin.post(`${siteUrl(site)}/publishing/auth/regenerate`);
    assert.equal((await published(`?visitorAuthToken=${jwt.sign({ role: 'staff' }, privateKey)}`)).status, 403);
  });

  it('works with the official GitBook API client unchanged', async () => {
    // The client's typings do not resolve under nodenext CommonJS; its runtime is what matters here.
    const client: any = new GitBookAPI({ authToken: ownerToken, endpoint: stack.baseUrl });
    const created = await client.orgs.createSite(org, { title: 'Client site', spaces: [spaces.Guides] });
    assert.equal(created.status, 201);
    const siteId = created.data.id;
    const section = await client.orgs.addSectionToSite(org, siteId, { spaceId: spaces.API, title: 'Client API' });
    assert.equal(section.data.object, 'site-section');
    const sections = await client.orgs.listSiteSections(org, siteId);
    assert.equal(sections.data.items.length, 2);
    const siteSpaces = await client.orgs.listSiteSpaces(org, siteId, { default: true });
    assert.equal(siteSpaces.data.items.length, 2, 'one default variant per section');
    const published = await client.orgs.getPublishedContentSite(org, siteId);
    assert.equal(published.data.object, 'published-content-site');
    assert.equal(published.data.structure.type, 'sections');
    const listed = await client.orgs.listSites(org, { published: false });
    assert.ok(listed.data.items.some((site: { id: string }) => site.id === siteId));
  });

  it('drops site spaces of deleted spaces so the published structure never breaks', async () => {
    const doomed = (await admin.post(`/v1/orgs/${org}/spaces`, { title: 'Doomed' })).body.id;
    const site = await newSite({ title: 'Resilient', spaces: [spaces.Changelog, doomed] });
    await admin.post(`${siteUrl(site)}/sections`, { spaceId: spaces.SDK, title: 'SDK' });
    const before = await admin.get(`${siteUrl(site)}/published`);
    assert.deepEqual(
      before.body.structure.structure[0].siteSpaces.map((s: any) => s.space.id),
      [spaces.Changelog, doomed],
    );

    assert.equal((await admin.delete(`/v1/spaces/${doomed}`)).status, 204);
    const afterDelete = await admin.get(`${siteUrl(site)}/published`);
    assert.equal(afterDelete.status, 200, JSON.stringify(afterDelete.body));
    const listed = afterDelete.body.structure.structure.flatMap((s: any) => s.siteSpaces.map((v: any) => v.space.id));
    assert.deepEqual(listed, [spaces.Changelog, spaces.SDK]);
    const siteSpaces = await items(admin, `${siteUrl(site)}/site-spaces`);
    expectEvery(siteSpaces, (s) => s.space.id !== doomed);
    const sections = await items(admin, `${siteUrl(site)}/sections`);
    expectEvery(sections, (s) => s.siteSpaces.every((v: any) => v.space.id !== doomed));
  });
});
