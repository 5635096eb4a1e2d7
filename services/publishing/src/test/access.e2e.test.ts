import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { apiClient, assertMatchesOpenApi, sharedTestStack, type ApiClient, type TestStack } from '@quire/testkit';

/**
 * Every publishing route for every kind of caller, paging through every list, and the
 * published structure of a site without sections — through the gateway.
 */
describe('publishing: access, paging and published structure through the gateway', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let creator: ApiClient;
  let reader: ApiClient;
  let guest: ApiClient;
  let outsider: ApiClient;
  let org: string;
  let otherOrg: string;
  let ownerToken: string;
  const spaces: Record<string, string> = {};
  const sites = () => `/v1/orgs/${org}/sites`;

  const created = async (client: ApiClient, path: string, body: Record<string, unknown>) => {
    const response = await client.post(path, body);
    assert.equal(response.status, 201, `${path}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  /** Every id of a list, read `limit` at a time through next.page; checks count on each page. */
  const pageThrough = async (path: string, limit: number) => {
    const ids: string[] = [];
    let page: string | undefined;
    let pages = 0;
    let count: number | undefined;
    do {
      const response = await admin.get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.ok(response.body.items.length <= limit);
      count ??= response.body.count;
      assert.equal(response.body.count, count);
      ids.push(...response.body.items.map((item: { id: string }) => item.id));
      page = response.body.next?.page;
      pages++;
    } while (page && pages < 50);
    assert.equal(ids.length, count);
    return { ids, pages };
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const owner = await stack.account(['bootstrap', '--email', 'access-owner@example.com', '--org', 'Access Org']);
    const other = await stack.account(['bootstrap', '--email', 'access-outsider@example.com', '--org', 'Access Elsewhere']);
    org = owner.organizationId;
    otherOrg = other.organizationId;
    ownerToken = owner.token;
    admin = apiClient(stack.baseUrl, owner.token);
    outsider = apiClient(stack.baseUrl, other.token);
    const member = async (email: string, role: string) =>
      apiClient(stack.baseUrl, (await stack.account(['add-member', '--org', org, '--email', email, '--role', role])).token);
    reader = await member('access-reader@example.com', 'read');
    creator = await member('access-creator@example.com', 'create');
    guest = await member('access-guest@example.com', 'guest');
    for (const title of ['One', 'Two', 'Three', 'Four']) spaces[title] = (await created(admin, `/v1/orgs/${org}/spaces`, { title })).id;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 404 to other organizations and guests on every route, 403 to readers on every write, and shows secrets to admins only', async () => {
    const site = await created(admin, sites(), { title: 'Guarded', visibility: 'share-link', spaces: [spaces.One] });
    const base = `${sites()}/${site.id}`;
    const section = await created(admin, `${base}/sections`, { spaceId: spaces.Two, title: 'Section' });
    const siteSpace = section.siteSpaces[0];
    const group = await created(admin, `${base}/section-groups`, { title: 'Group' });
    const link = await created(admin, `${base}/share-links`, { name: 'Link' });
    await admin.post(`${base}/publish`);
    const shareKey = new URL(link.urls.published).searchParams.get('share')!;
    const { privateKey } = (await admin.get(`${base}/publishing/auth`)).body;

    type Route = [method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string, body?: Record<string, unknown>];
    const reads: Route[] = [
      ['get', sites()],
      ['get', base],
      ['get', `${base}/adaptive-schema`],
      ['get', `${base}/adaptive-schema/template-conditions`],
      ['get', `${base}/published`],
      ['get', `${base}/sections`],
      ['get', `${base}/section-groups`],
      ['get', `${base}/site-spaces?default=true`],
    ];
    const writes: Route[] = [
      ['post', sites(), { title: 'Nope' }],
      ['patch', base, { title: 'Nope' }],
      ['delete', base],
      ['post', `${base}/publish`],
      ['post', `${base}/unpublish`],
      ['put', `${base}/adaptive-schema`, { jsonSchema: { type: 'object', properties: {}, additionalProperties: false } }],
      ['get', `${base}/publishing/auth`],
      ['patch', `${base}/publishing/auth`, { logoutURL: null }],
      ['post', `${base}/publishing/auth/regenerate`],
      ['post', `${base}/sections`, { spaceId: spaces.Three }],
      ['patch', `${base}/sections/${section.id}`, { title: 'Nope' }],
      ['delete', `${base}/sections/${section.id}`],
      ['post', `${base}/sections/${section.id}/move`, {}],
      ['post', `${base}/section-groups`, { title: 'Nope' }],
      ['patch', `${base}/section-groups/${group.id}`, { title: 'Nope' }],
      ['delete', `${base}/section-groups/${group.id}`],
      ['post', `${base}/section-groups/${group.id}/move`, {}],
      ['post', `${base}/section-groups/${group.id}/sections`, { sectionId: section.id }],
      ['delete', `${base}/section-groups/${group.id}/sections/${section.id}`],
      ['post', `${base}/site-spaces`, { spaceId: spaces.Three }],
      ['patch', `${base}/site-spaces/${siteSpace.id}`, { path: 'nope' }],
      ['delete', `${base}/site-spaces/${siteSpace.id}`],
      ['post', `${base}/site-spaces/${siteSpace.id}/move`, {}],
      ['get', `${base}/share-links`],
      ['post', `${base}/share-links`, { name: 'Nope' }],
      ['patch', `${base}/share-links/${link.id}`, { active: false }],
      ['delete', `${base}/share-links/${link.id}`],
    ];
    const call = (client: ApiClient, [method, path, body]: Route) =>
      method === 'get' || method === 'delete' ? client[method](path) : client[method](path, body ?? {});

    for (const route of [...reads, ...writes]) {
      for (const [name, client] of [
        ['outsider', outsider],
        ['guest', guest],
      ] as const) {
        const response = await call(client, route);
        assert.equal(response.status, 404, `${name} ${route[0]} ${route[1]}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.code, 404);
        assert.ok(!JSON.stringify(response.body).includes(site.id), 'a 404 does not echo the site id');
      }
      // Addressed under the caller's own organization, someone else's site does not exist either.
      const own = await call(outsider, [route[0], route[1].replace(`/orgs/${org}/`, `/orgs/${otherOrg}/`), route[2]]);
      if (route[1] !== sites()) assert.equal(own.status, route[0] === 'delete' ? 204 : 404, `outsider in own org ${route[0]} ${route[1]}`);
    }
    for (const route of writes) {
      for (const [name, client] of [
        ['reader', reader],
        ['creator', creator],
      ] as const) {
        const response = await call(client, route);
        assert.equal(response.status, 403, `${name} ${route[0]} ${route[1]}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.code, 403);
      }
    }
    for (const route of reads) {
      const response = await call(reader, route);
      assert.equal(response.status, 200, `reader ${route[1]}: ${JSON.stringify(response.body)}`);
      const text = JSON.stringify(response.body);
      assert.ok(!text.includes(shareKey) && !text.includes(privateKey), `reader ${route[1]} shows no secret`);
    }
    // Nothing a non-admin tried changed anything.
    const after = await admin.get(base);
    assert.equal(after.body.title, 'Guarded');
    assert.equal(after.body.published, true);
    assert.equal((await admin.get(`${base}/share-links`)).body.items[0].active, true);
    assert.equal((await admin.get(`${base}/publishing/auth`)).body.privateKey, privateKey);
  });

  it('presents permissions that match what each role may do', async () => {
    const site = await created(admin, sites(), { title: 'Permissions' });
    const path = `${sites()}/${site.id}`;
    for (const [client, mayWrite] of [
      [admin, true],
      [creator, false],
      [reader, false],
    ] as const) {
      const { permissions } = (await client.get(path)).body;
      assert.equal(permissions.view, true);
      assert.equal(permissions.admin, mayWrite);
      assert.equal(permissions.create, mayWrite, 'create manages the structure: admins only here');
      assert.equal(permissions.editAdaptiveSchema, mayWrite);
      assert.equal((await client.patch(path, { title: 'Permissions' })).status, mayWrite ? 200 : 403);
      assert.equal((await client.post(`${path}/sections`, { spaceId: spaces.One })).status, mayWrite ? 201 : 403);
      const schema = (await client.get(`${path}/adaptive-schema`)).body.jsonSchema;
      assert.equal((await client.put(`${path}/adaptive-schema`, { jsonSchema: schema })).status, mayWrite ? 200 : 403);
    }
    const listed = (await reader.get(sites())).body.items.find((s: { id: string }) => s.id === site.id);
    assert.equal(listed.permissions.admin, false);
  });

  it('pages through sections, section groups and share links with small limits', async () => {
    const site = await created(admin, sites(), { title: 'Paged' });
    const base = `${sites()}/${site.id}`;
    const sectionIds: string[] = [];
    for (const title of ['One', 'Two', 'Three', 'Four']) sectionIds.push((await created(admin, `${base}/sections`, { spaceId: spaces[title], title })).id);
    const groupIds: string[] = [];
    for (const title of ['G1', 'G2', 'G3']) groupIds.push((await created(admin, `${base}/section-groups`, { title })).id);
    const linkIds: string[] = [];
    for (const name of ['L1', 'L2', 'L3']) linkIds.push((await created(admin, `${base}/share-links`, { name })).id);

    const sections = await pageThrough(`${base}/sections`, 1);
    assert.deepEqual(sections.ids, sectionIds);
    assert.equal(sections.pages, 4);
    const groups = await pageThrough(`${base}/section-groups`, 2);
    assert.deepEqual(groups.ids, groupIds);
    assert.equal(groups.pages, 2);
    const links = await pageThrough(`${base}/share-links`, 2);
    assert.deepEqual([...links.ids].sort(), [...linkIds].sort());
    assert.equal(new Set(links.ids).size, 3);
    const siteSpaces = await pageThrough(`${base}/site-spaces?default=true`, 1);
    assert.equal(siteSpaces.ids.length, 4, 'one default per section');
    for (const list of ['sections', 'section-groups', 'share-links', 'site-spaces']) {
      const bad = await admin.get(`${base}/${list}?page=not-a-cursor`);
      assert.equal(bad.status, 400, list);
      assert.match(bad.body.error.message, /\bpage\b/);
      assert.equal((await admin.get(`${base}/${list}?limit=1001`)).status, 400);
    }
  });

  it('publishes a site without sections as one implicit default section, conditions applied', async () => {
    const site = await created(admin, sites(), { title: 'Flat site', spaces: [spaces.One, spaces.Two] });
    const base = `${sites()}/${site.id}`;
    await admin.patch(base, { basename: 'flat' });
    await admin.post(`${base}/publish`);
    const [first, second] = (await admin.get(`${base}/site-spaces`)).body.items;
    await admin.patch(`${base}/site-spaces/${second.id}`, { condition: 'visitor.claims.beta === true' });

    const content = await admin.get(`${base}/published`);
    assert.equal(content.status, 200, JSON.stringify(content.body));
    assert.equal(content.body.structure.type, 'sections');
    const [root] = content.body.structure.structure;
    assert.equal(content.body.structure.structure.length, 1);
    assert.equal(root.object, 'site-section');
    assert.equal(root.id, site.id);
    assert.equal(root.default, true);
    assert.equal(root.title, 'Flat site');
    assert.equal(root.path, 'flat');
    assert.equal(root.urls.published, content.body.site.urls.published);
    assert.deepEqual(
      root.siteSpaces.map((s: { id: string }) => s.id),
      [first.id],
      'the conditional variant is hidden without claims',
    );
    assert.equal(root.siteSpaces[0].urls.published, content.body.site.urls.published, 'the default variant lives at the site address');
    assertMatchesOpenApi('SiteSection', root);

    // Through the official client, unchanged.
    const client: any = new GitBookAPI({ authToken: ownerToken, endpoint: stack.baseUrl });
    const viaClient = await client.orgs.getPublishedContentSite(org, site.id);
    assert.equal(viaClient.data.structure.type, 'sections');
    assert.equal(viaClient.data.structure.structure[0].siteSpaces.length, 1);

    // Its spaces deleted, the site still answers: an empty structure.
    const lonely = await created(admin, `/v1/orgs/${org}/spaces`, { title: 'Lonely' });
    const emptied = await created(admin, sites(), { title: 'Emptied', spaces: [lonely.id] });
    assert.equal((await admin.delete(`/v1/spaces/${lonely.id}`)).status, 204);
    const empty = await admin.get(`${sites()}/${emptied.id}/published`);
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.deepEqual(empty.body.structure, { type: 'sections', structure: [] });
  });

  it('moves sections, groups and site spaces to the end when the deprecated move has no position (GitBook client)', async () => {
    const client: any = new GitBookAPI({ authToken: ownerToken, endpoint: stack.baseUrl });
    const site = await created(admin, sites(), { title: 'Reordered' });
    const base = `${sites()}/${site.id}`;
    const a = await created(admin, `${base}/sections`, { spaceId: spaces.One, title: 'Alpha' });
    const b = await created(admin, `${base}/sections`, { spaceId: spaces.Two, title: 'Beta' });
    const group = await created(admin, `${base}/section-groups`, { title: 'Group' });
    const order = async () => (await admin.get(`${base}/published`)).body.structure.structure.map((c: { id: string }) => c.id);
    assert.deepEqual(await order(), [a.id, b.id]);

    const moved = await client.orgs.moveSiteSection(org, site.id, a.id, {});
    assert.equal(moved.status, 200);
    await created(admin, `${base}/section-groups/${group.id}/sections`, { sectionId: b.id });
    assert.deepEqual(await order(), [group.id, a.id]);
    await client.orgs.moveSiteSectionGroup(org, site.id, group.id, {});
    assert.deepEqual(await order(), [a.id, group.id]);
    await client.orgs.moveSiteSectionGroup(org, site.id, group.id, { position: { before: { type: 'site-section', id: a.id } } });
    assert.deepEqual(await order(), [group.id, a.id]);

    const variant = await created(admin, `${base}/site-spaces`, { spaceId: spaces.Three, sectionId: a.id });
    const variants = async () =>
      (await admin.get(`${base}/sections`)).body.items.find((s: { id: string }) => s.id === a.id).siteSpaces.map((s: { id: string }) => s.id);
    const [original] = a.siteSpaces.map((s: { id: string }) => s.id);
    assert.deepEqual(await variants(), [original, variant.id]);
    await client.orgs.moveSiteSpace(org, site.id, original, {});
    assert.deepEqual(await variants(), [variant.id, original]);
  });
});
