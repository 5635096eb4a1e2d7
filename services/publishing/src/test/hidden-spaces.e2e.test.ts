import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { assertMatchesOpenApi, expectOk, sharedTestStack, type ApiClient, type TestStack } from '@quire/testkit';

/**
 * A space a member may not open (GET /v1/spaces/{id} is a 404 for them) leaves no trace in
 * what publishing shows them of the sites it is on: not in site spaces, sections, groups,
 * the published structure, the sites' counts or the sites list's space filter. Admins
 * still see all of it. Through the gateway.
 */
describe('publishing: spaces hidden from a member stay hidden through sites', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let reader: ApiClient;
  let org: string;
  const sites = () => `/v1/orgs/${org}/sites`;
  /** What identifies the hidden spaces: ids, titles, the paths made of the titles, revisions. */
  const secrets: string[] = [];
  let open: string;
  let secret: string;
  let secretVariant: string;

  const newSpace = async (title: string, hidden: boolean) => {
    const space = expectOk(await admin.post(`/v1/orgs/${org}/spaces`, { title }), 201);
    if (!hidden) return space.id as string;
    // No default level: a `read` member gets no role on it at all (content's rule).
    expectOk(await admin.patch(`/v1/spaces/${space.id}`, { defaultLevel: null }));
    assert.equal((await reader.get(`/v1/spaces/${space.id}`)).status, 404, 'the member cannot open it');
    const seen = expectOk(await admin.get(`/v1/spaces/${space.id}`));
    secrets.push(space.id, title, title.toLowerCase().replaceAll(' ', '-'), seen.revision);
    return space.id as string;
  };
  /** The response, checked to hold nothing of the hidden spaces. */
  const clean = async (path: string) => {
    const body = expectOk(await reader.get(path));
    const text = JSON.stringify(body);
    for (const secretText of secrets) assert.ok(!text.includes(secretText), `${path} shows "${secretText}" of a hidden space: ${text}`);
    if (Array.isArray(body.items)) assert.equal(body.count, body.items.length, `${path}: count agrees with the items`);
    return body;
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const organization = await stack.organization({ domain: 'hidden-spaces.test', roles: ['read'] });
    org = organization.id;
    admin = organization.admin.api;
    reader = organization.members.read.api;
    open = await newSpace('Open handbook', false);
    secret = await newSpace('Secret roadmap', true);
    secretVariant = await newSpace('Confidential pricing', true);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('leaves hidden spaces out of a site without sections: site spaces, counts, published root', async () => {
    const site = expectOk(await admin.post(sites(), { title: 'Flat mixed', spaces: [open, secret] }), 201);
    const base = `${sites()}/${site.id}`;
    expectOk(await admin.post(`${base}/publish`));
    assert.equal(expectOk(await admin.get(`${base}/site-spaces`)).count, 2, 'admins see every site space');

    const siteSpaces = await clean(`${base}/site-spaces`);
    assert.deepEqual(
      siteSpaces.items.map((s: any) => s.space.id),
      [open],
    );
    for (const item of siteSpaces.items) assertMatchesOpenApi('SiteSpace', item);
    const seen = await clean(base);
    assert.equal(seen.siteSpaces, 1, 'Site.siteSpaces counts what the member sees');
    assertMatchesOpenApi('Site', seen);
    assert.equal(expectOk(await admin.get(base)).siteSpaces, 2);

    const published = await clean(`${base}/published`);
    assert.equal(published.site.siteSpaces, 1);
    const [root] = published.structure.structure;
    assert.deepEqual(
      root.siteSpaces.map((s: any) => s.space.id),
      [open],
    );
    assertMatchesOpenApi('SiteSection', root);

    const listed = (await clean(sites())).items.find((s: any) => s.id === site.id);
    assert.equal(listed.siteSpaces, 1);
    assert.deepEqual((await clean(`${sites()}?space=${secret}`)).items, [], 'no site is said to show a hidden space');
    assert.ok(expectOk(await admin.get(`${sites()}?space=${secret}`)).items.some((s: any) => s.id === site.id));
  });

  it('leaves hidden variants and sections made only of hidden spaces out of sections, groups and the published structure', async () => {
    const site = expectOk(await admin.post(sites(), { title: 'Sectioned mixed' }), 201);
    const base = `${sites()}/${site.id}`;
    const guides = expectOk(await admin.post(`${base}/sections`, { spaceId: open, title: 'Guides' }), 201);
    expectOk(await admin.post(`${base}/site-spaces`, { spaceId: secretVariant, sectionId: guides.id }), 201);
    // No title given: the section is named (and its path made) after the hidden space.
    const roadmap = expectOk(await admin.post(`${base}/sections`, { spaceId: secret }), 201);
    assert.equal(roadmap.title, 'Secret roadmap');
    const group = expectOk(await admin.post(`${base}/section-groups`, { title: 'Everything', sections: [guides.id, roadmap.id] }), 201);
    expectOk(await admin.post(`${base}/publish`));

    const sections = await clean(`${base}/sections`);
    assert.deepEqual(
      sections.items.map((s: any) => s.id),
      [guides.id],
    );
    assert.deepEqual(
      sections.items[0].siteSpaces.map((s: any) => s.space.id),
      [open],
    );
    for (const item of sections.items) assertMatchesOpenApi('SiteSection', item);
    const paged = await clean(`${base}/sections?limit=1`);
    assert.equal(paged.next, undefined, 'no page left for the hidden section');

    const groups = await clean(`${base}/section-groups`);
    assert.deepEqual(
      groups.items.map((g: any) => g.id),
      [group.id],
    );
    assert.deepEqual(
      groups.items[0].children.map((c: any) => c.id),
      [guides.id],
    );
    assert.deepEqual(
      groups.items[0].sections.map((c: any) => c.id),
      [guides.id],
    );
    assertMatchesOpenApi('SiteSectionGroup', groups.items[0]);

    const siteSpaces = await clean(`${base}/site-spaces`);
    assert.deepEqual(
      siteSpaces.items.map((s: any) => s.space.id),
      [open],
    );
    assert.equal((await clean(`${base}/site-spaces?default=false`)).count, 0);
    assert.equal((await clean(base)).siteSpaces, 1);

    const published = await clean(`${base}/published`);
    const [shownGroup] = published.structure.structure;
    assert.deepEqual(
      shownGroup.children.map((c: any) => c.id),
      [guides.id],
    );
    assert.deepEqual(
      shownGroup.children[0].siteSpaces.map((s: any) => s.space.id),
      [open],
    );
    assertMatchesOpenApi('SiteSectionGroup', shownGroup);

    // The admin still sees everything, in the same responses.
    const all = expectOk(await admin.get(`${base}/sections`));
    assert.deepEqual(
      all.items.map((s: any) => s.id),
      [guides.id, roadmap.id],
    );
    assert.deepEqual(
      all.items[0].siteSpaces.map((s: any) => s.space.id),
      [open, secretVariant],
    );
    assert.equal(expectOk(await admin.get(`${base}/site-spaces`)).count, 3);
    assert.equal(expectOk(await admin.get(`${base}/section-groups`)).items[0].children.length, 2);
    const everything = expectOk(await admin.get(`${base}/published`));
    assert.deepEqual(
      everything.structure.structure[0].children.map((c: any) => c.id),
      [guides.id, roadmap.id],
    );
    assert.equal(everything.site.siteSpaces, 3);

    // Opened to the member, the space shows up for them at once.
    expectOk(await admin.patch(`/v1/spaces/${secret}`, { defaultLevel: 'inherit' }));
    assert.deepEqual(
      expectOk(await reader.get(`${base}/sections`)).items.map((s: any) => s.id),
      [guides.id, roadmap.id],
    );
  });
});
