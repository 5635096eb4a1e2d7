import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { assertMatchesOpenApi, sharedTestStack, type ApiClient, type TestOrganization, type TestStack } from '@quire/testkit';
import type { Database } from '@quire/runtime';

/*
 * Every address a site ever published keeps working: the redirects a site's admins set
 * (GitBook's site-redirects operations), and the addresses the site recorded as it published
 * them, which send a visitor in one hop to where the page is now. Through the gateway.
 */

type Org = TestOrganization<'read'>;

interface Answer {
  status: number;
  location: string | null;
  text: string;
}

describe('site redirects and the addresses a site published', () => {
  let stack: TestStack;
  let org: Org;
  let admin: ApiClient;
  let reader: ApiClient;
  let outsider: ApiClient;
  let db: Database;

  const sites = () => `/v1/orgs/${org.id}/sites`;
  const visit = async (path: string): Promise<Answer> => {
    const url = path.startsWith('http') ? path : `${stack.baseUrl}${path}`;
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    return { status: response.status, location: response.headers.get('location'), text: await response.text() };
  };
  const pathOf = (url: string) => new URL(url).pathname;
  const expectStatus = (answer: { status: number; body: any }, status: number, what = '') =>
    assert.equal(answer.status, status, `${what} ${JSON.stringify(answer.body)}`);
  const expect400 = async (response: Promise<{ status: number; body: any }>, field: string) => {
    const answer = await response;
    expectStatus(answer, 400, field);
    assert.match(answer.body.error.message, new RegExp(`\\b${field.replaceAll('.', '\\.')}\\b`));
  };
  const newSpace = async (title: string) => {
    const created = await admin.post(`/v1/orgs/${org.id}/spaces`, { title });
    expectStatus(created, 201);
    return created.body.id as string;
  };
  /** Writes pages into a space through a change request, merged; the ids of the pages it touched, in order. */
  const write = async (spaceId: string, changes: unknown[]): Promise<string[]> => {
    const cr = await admin.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Pages' });
    expectStatus(cr, 201);
    const written = await admin.post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content?compat=false`, { changes });
    expectStatus(written, 200);
    expectStatus(await admin.post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/merge`), 200);
    return written.body.changes.filter((c: any) => c.page).map((c: any) => c.page.id);
  };
  const publishedSite = async (title: string, spaces: string[]) => {
    const created = await admin.post(sites(), { title, spaces });
    expectStatus(created, 201);
    const published = await admin.post(`${sites()}/${created.body.id}/publish`);
    expectStatus(published, 200);
    return published.body;
  };
  /** Waits until the site's recorded addresses hold every one of `addresses` (recorded from events, off the page path). */
  const recorded = async (siteId: string, addresses: string[]) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await db
        .collection('site_addresses')
        .find({ siteId, address: { $in: addresses } })
        .toArray();
      if (rows.length === addresses.length) return;
      if (Date.now() > deadline) assert.fail(`addresses not recorded: ${addresses.filter((a) => !rows.some((r) => r.address === a)).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** The address answers the page titled `title`, itself or after exactly one permanent redirect. */
  const reaches = async (address: string, title: string) => {
    const first = await visit(address);
    let page = first;
    if (first.status !== 200) {
      assert.equal(first.status, 301, `${address}: ${first.status}`);
      assert.ok(first.location, address);
      page = await visit(first.location);
      assert.equal(page.status, 200, `${address} → ${first.location}: ${page.status} (one hop only)`);
    }
    assert.match(page.text, new RegExp(`<h1>${title}</h1>`), `${address} → ${first.location}`);
    return first;
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    org = await stack.organization({ domain: 'redirects.test', title: 'Redirects', roles: ['read'] as const });
    admin = org.admin.api;
    reader = org.members.read.api;
    outsider = org.outsider.api;
    db = await stack.serviceDatabase('publishing');
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
  });

  it('keeps every address a site published reaching its page in one hop after moves, renames and path changes', async () => {
    const guides = await newSpace('Guides');
    const api = await newSpace('API');
    const apiV2 = await newSpace('API v2');
    const [intro, install, linux, configure, oldNotes, faq] = await write(guides, [
      { type: 'insert_page', ref: 'intro', title: 'Introduction', slug: 'introduction', markdown: 'Start here.' },
      { type: 'insert_page', ref: 'install', title: 'Install', slug: 'install', markdown: 'Installing.' },
      { type: 'insert_page', into: 'install', title: 'On Linux', slug: 'linux', markdown: 'Penguins.' },
      { type: 'insert_page', title: 'Configure', slug: 'configure', markdown: 'Settings.' },
      { type: 'insert_page', title: 'Old notes', slug: 'old-notes', markdown: 'Gone soon.' },
      { type: 'insert_page', title: 'FAQ', slug: 'faq', markdown: 'Questions.' },
    ]);
    const [, reference] = await write(api, [
      { type: 'insert_page', title: 'Endpoints', slug: 'endpoints', markdown: 'GET /things' },
      { type: 'insert_page', title: 'Reference', slug: 'reference', markdown: 'All of it.' },
    ]);
    await write(apiV2, [{ type: 'insert_page', title: 'What is new', slug: 'new', markdown: 'Version two.' }]);

    // A site in sections: the guides in the default one, the API in its own with a second variant.
    const created = await admin.post(sites(), { title: 'Handbook', spaces: [guides] });
    expectStatus(created, 201);
    const siteId = created.body.id as string;
    const section = await admin.post(`${sites()}/${siteId}/sections`, { spaceId: api, title: 'API' });
    expectStatus(section, 201);
    const variant = await admin.post(`${sites()}/${siteId}/site-spaces`, { spaceId: apiV2, sectionId: section.body.id });
    expectStatus(variant, 201);
    const site = (await admin.post(`${sites()}/${siteId}/publish`)).body;
    const base = pathOf(site.urls.published);
    const sections = (await admin.get(`${sites()}/${siteId}/sections`)).body.items;
    const handbook = sections.find((s: any) => s.default).path as string;
    const apiPath = section.body.path as string;
    const v2 = variant.body.path as string;

    // Every address the site publishes now, with the page it shows.
    const addresses: Record<string, string> = {
      '': 'Introduction',
      introduction: 'Introduction',
      install: 'Install',
      'install/linux': 'On Linux',
      configure: 'Configure',
      faq: 'FAQ',
      [`${handbook}/install/linux`]: 'On Linux',
      [`${apiPath}/`]: 'Endpoints',
      [`${apiPath}/endpoints`]: 'Endpoints',
      [`${apiPath}/reference`]: 'Reference',
      [`${apiPath}/${v2}/`]: 'What is new',
      [`${apiPath}/${v2}/new`]: 'What is new',
    };
    for (const [address, title] of Object.entries(addresses)) assert.equal((await reaches(`${base}${address}`, title)).status, 200, address);
    assert.equal((await visit(`${base}old-notes`)).status, 200);
    await recorded(siteId, ['/install/linux', '/old-notes', `/${apiPath}/reference`, `/${apiPath}/${v2}/new`, `/${handbook}/install/linux`]);

    // Pages moved, renamed and re-slugged through change requests; one deleted, one replaced.
    await write(guides, [
      { type: 'update_page', page: install, slug: 'installation', title: 'Installation' },
      { type: 'update_page', page: linux, slug: 'gnu-linux' },
      { type: 'update_page', page: configure, into: install },
      { type: 'update_page', page: intro, slug: 'welcome' },
      { type: 'delete_page', page: oldNotes },
      { type: 'delete_page', page: faq },
      { type: 'insert_page', title: 'New FAQ', slug: 'faq', markdown: 'Other questions.' },
    ]);
    await write(api, [{ type: 'update_page', page: reference, slug: 'api-reference' }]);
    // The section's and the variant's paths change.
    expectStatus(await admin.patch(`${sites()}/${siteId}/sections/${section.body.id}`, { path: 'developers' }), 200);
    expectStatus(await admin.patch(`${sites()}/${siteId}/site-spaces/${variant.body.id}`, { path: 'v2' }), 200);

    const renamed = { ...addresses, install: 'Installation', faq: 'New FAQ' };
    for (const [address, title] of Object.entries(renamed)) await reaches(`${base}${address}`, title);
    const moved = await visit(`${base}install/linux`);
    assert.equal(moved.location, `${base}installation/gnu-linux`);
    assert.equal((await visit(`${base}configure`)).location, `${base}installation/configure`);
    assert.equal((await visit(`${base}introduction`)).location, base, 'the first page is the root');
    assert.equal((await visit(`${base}${apiPath}/reference?x=1`)).location, `${base}developers/api-reference?x=1`, 'the query goes along');
    assert.equal((await visit(`${base}${apiPath}/${v2}/new`)).location, `${base}developers/v2/`, 'the first page of a variant is its root');
    assert.equal((await visit(`${base}install/linux.md`)).location, `${base}installation/gnu-linux.md`, 'markdown addresses too');
    // A deleted page that nothing replaced is not found; one that was replaced shows the new page (above).
    assert.equal((await visit(`${base}old-notes`)).status, 404);
    assert.equal((await visit(`${base}never-was`)).status, 404);

    // The addresses of the second generation are recorded as well: a second move keeps both in one hop.
    await recorded(siteId, ['/installation/gnu-linux', '/developers/api-reference', '/developers/v2/new']);
    await write(guides, [{ type: 'update_page', page: install, slug: 'setup' }]);
    expectStatus(await admin.patch(`${sites()}/${siteId}/sections/${section.body.id}`, { path: 'dev' }), 200);
    for (const address of ['install/linux', 'installation/gnu-linux', `${handbook}/install/linux`]) {
      assert.equal((await reaches(`${base}${address}`, 'On Linux')).location, `${base}setup/gnu-linux`, address);
    }
    for (const address of [`${apiPath}/reference`, 'developers/api-reference']) {
      assert.equal((await reaches(`${base}${address}`, 'Reference')).location, `${base}dev/api-reference`, address);
    }
  });

  describe("a site's redirects", () => {
    let siteId: string;
    let base: string;
    let spaceId: string;
    let siteSpaceId: string;
    let sectionlessPage: string;
    const redirects = () => `${sites()}/${siteId}/redirects`;

    beforeAll(async () => {
      spaceId = await newSpace('Manual');
      [, sectionlessPage] = await write(spaceId, [
        { type: 'insert_page', title: 'Manual', slug: 'manual', markdown: 'The manual.' },
        { type: 'insert_page', title: 'Usage', slug: 'usage', markdown: 'How to use it.' },
      ]);
      const site = await publishedSite('Manual site', [spaceId]);
      siteId = site.id;
      base = pathOf(site.urls.published);
      siteSpaceId = (await admin.get(`${sites()}/${siteId}/site-spaces`)).body.items[0].id;
    });

    it('creates, reads, lists, updates and deletes redirects, as GitBook shapes them', async () => {
      const created = await admin.post(redirects(), { source: '/old-usage', destination: { kind: 'site-page', siteSpaceId, pageId: sectionlessPage } });
      expectStatus(created, 201);
      const redirect = created.body;
      assertMatchesOpenApi('SiteRedirect', redirect);
      assert.deepEqual(
        { ...redirect, id: undefined, createdAt: undefined },
        {
          object: 'site-redirect',
          id: undefined,
          source: '/old-usage',
          draft: false,
          captureWildcard: false,
          permanent: false,
          destination: { kind: 'site-page', siteSpaceId, pageId: sectionlessPage },
          createdAt: undefined,
        },
      );
      assert.match(created.headers.get('location') ?? '', new RegExp(`/redirects/${redirect.id}$`));

      // Served where no page is: a 302 while it is not permanent, then a 308 (a public site).
      const served = await visit(`${base}old-usage`);
      assert.equal(served.status, 302);
      assert.equal(served.location, `${base}usage`);
      const patched = await admin.patch(`${redirects()}/${redirect.id}`, { permanent: true });
      expectStatus(patched, 200);
      assertMatchesOpenApi('SiteRedirect', patched.body);
      assert.equal(patched.body.permanent, true);
      assert.ok(patched.body.updatedAt);
      assert.equal((await visit(`${base}old-usage`)).status, 308);
      // A page that is there is served, whatever redirect would match it.
      expectStatus(await admin.post(redirects(), { source: '/usage', destination: { kind: 'external', url: 'https://example.com/' } }), 201);
      assert.equal((await visit(`${base}usage`)).status, 200);

      // Read by source (with where it sends), and listed: by readers too.
      const bySource = await reader.get(`${sites()}/${siteId}/redirect?source=/old-usage`);
      expectStatus(bySource, 200);
      assert.equal(bySource.body.redirect.id, redirect.id);
      assert.equal(bySource.body.target, `${stack.baseUrl}${base}usage`);
      expectStatus(await reader.get(`${sites()}/${siteId}/redirect?source=/nothing-here`), 404);
      const byPath = await admin.post(redirects(), { source: '/by-path', destination: { kind: 'path', spaceId, path: 'usage' } });
      expectStatus(byPath, 201);
      assert.deepEqual(byPath.body.destination, { kind: 'site-page', siteSpaceId, pageId: sectionlessPage });

      const listed = await reader.get(`${redirects()}?limit=2`);
      expectStatus(listed, 200);
      assert.equal(listed.body.count, 3);
      assert.equal(listed.body.items.length, 2);
      for (const item of listed.body.items) assertMatchesOpenApi('SiteRedirect', item);
      const rest = await reader.get(`${redirects()}?limit=2&page=${encodeURIComponent(listed.body.next.page)}`);
      assert.equal(rest.body.items.length, 1);
      assert.equal(rest.body.next, undefined);
      const bySourceOrder = await admin.get(`${redirects()}?orderBy=source`);
      assert.deepEqual(
        bySourceOrder.body.items.map((r: any) => r.source),
        ['/by-path', '/old-usage', '/usage'],
      );
      assert.deepEqual(
        (await admin.get(`${redirects()}?search=old`)).body.items.map((r: any) => r.id),
        [redirect.id],
      );
      assert.equal((await admin.get(`${redirects()}?draft=true`)).body.count, 0);

      // Deleted: 204, and again 204 (idempotent; GitBook's 205 for the first is left out: one status per operation); its address is a 404 again.
      assert.equal((await admin.delete(`${redirects()}/${redirect.id}`)).status, 204);
      assert.equal((await admin.delete(`${redirects()}/${redirect.id}`)).status, 204);
      assert.equal((await visit(`${base}old-usage`)).status, 404);
    });

    it('sends wildcard sources with what follows them, and keeps drafts unserved until published', async () => {
      const legacy = await admin.post(redirects(), {
        source: '/legacy/*',
        captureWildcard: true,
        destination: { kind: 'external', url: 'https://archive.example.com/docs' },
      });
      expectStatus(legacy, 201);
      const hit = await visit(`${base}legacy/a/b`);
      assert.equal(hit.status, 302);
      assert.equal(hit.location, 'https://archive.example.com/docs/a/b');
      expectStatus(await admin.post(redirects(), { source: '/legacy/deeper/*', destination: { kind: 'site-space', siteSpaceId } }), 201);
      assert.equal((await visit(`${base}legacy/deeper/x`)).location, base, 'the longest prefix wins');

      const draft = await admin.post(redirects(), { source: '/soon', draft: true, destination: { kind: 'site-page', siteSpaceId, pageId: sectionlessPage } });
      expectStatus(draft, 201);
      assert.equal((await visit(`${base}soon`)).status, 404);
      const bulk = await admin.put(redirects(), {
        redirects: [
          { source: '/soon', intent: 'publish' },
          { source: '/also', destination: { kind: 'external', url: 'https://example.com/also' } },
          { source: '/also', destination: { kind: 'external', url: 'https://example.com/also-2' }, permanent: true },
          { source: '/legacy/deeper/*', destination: null },
          { source: '/broken', destination: { kind: 'site-section', siteSectionId: 'no-such-section' } },
        ],
      });
      expectStatus(bulk, 200);
      assert.deepEqual(
        bulk.body.results.map((r: any) => [r.status, r.source, r.draft]),
        [
          ['published', '/soon', false],
          ['created', '/also', false],
          ['updated', '/also', false],
          ['deleted', '/legacy/deeper/*', false],
          ['error', '/broken', false],
        ],
      );
      assert.match(bulk.body.results[4].error, /siteSectionId/);
      assert.equal((await visit(`${base}soon`)).location, `${base}usage`);
      const also = await visit(`${base}also`);
      assert.deepEqual([also.status, also.location], [308, 'https://example.com/also-2']);
      assert.equal((await visit(`${base}legacy/deeper/x`)).location, 'https://archive.example.com/docs/deeper/x');
      assert.equal((await admin.get(`${redirects()}?draft=true`)).body.count, 0);
    });

    it('refuses readers (403), outsiders and other sites (404), and bad input (400 naming the field)', async () => {
      const body = { source: '/x', destination: { kind: 'site-space', siteSpaceId } };
      expectStatus(await reader.post(redirects(), body), 403);
      expectStatus(await outsider.post(redirects(), body), 404);
      expectStatus(await outsider.get(redirects()), 404);
      expectStatus(await outsider.get(`${sites()}/${siteId}/redirect?source=/x`), 404);
      // Another organization's site under its own organization's address: not found either.
      const theirs = await outsider.post(`/v1/orgs/${org.outsider.organizationId}/sites`, { title: 'Theirs' });
      expectStatus(theirs, 201);
      expectStatus(await admin.get(`${sites()}/${theirs.body.id}/redirects`), 404);
      expectStatus(await admin.post(`${sites()}/${theirs.body.id}/redirects`, body), 404);
      expectStatus(await outsider.delete(`${redirects()}/whatever`), 404);
      expectStatus(await reader.delete(`${redirects()}/whatever`), 403);
      const some = await admin.post(redirects(), { source: '/to-patch', destination: { kind: 'site-space', siteSpaceId } });
      expectStatus(some, 201);
      expectStatus(await reader.patch(`${redirects()}/${some.body.id}`, { permanent: true }), 403);
      expectStatus(await admin.patch(`${redirects()}/unknown-redirect`, { permanent: true }), 404);

      for (const source of ['no-slash', '/', '/*', '/a/*/b', '/a b', `/${'a'.repeat(512)}`])
        await expect400(admin.post(redirects(), { ...body, source }), 'source');
      await expect400(admin.post(redirects(), { source: '/x' }), 'destination');
      await expect400(admin.post(redirects(), { ...body, destination: { kind: 'elsewhere' } }), 'destination');
      await expect400(admin.post(redirects(), { ...body, destination: { kind: 'external', url: 'javascript:alert(1)' } }), 'destination.url');
      await expect400(admin.post(redirects(), { ...body, destination: { kind: 'site-section', siteSectionId: 'nope' } }), 'destination.siteSectionId');
      await expect400(admin.post(redirects(), { ...body, destination: { kind: 'site-page', siteSpaceId, pageId: 'nope' } }), 'destination.pageId');
      await expect400(admin.post(redirects(), { ...body, destination: { kind: 'path', spaceId, path: 'nowhere' } }), 'destination.path');
      await expect400(admin.post(redirects(), { ...body, captureWildcard: true }), 'captureWildcard');
      await expect400(admin.patch(`${redirects()}/${some.body.id}`, { source: 'bad' }), 'source');
      await expect400(admin.get(`${redirects()}?orderBy=title`), 'orderBy');
      await expect400(admin.get(`${sites()}/${siteId}/redirect`), 'source');
      expectStatus(await admin.post(redirects(), { ...body, source: '/to-patch' }), 409);
    });

    it('works with the official GitBook API client unchanged', async () => {
      // The client's typings do not resolve under nodenext CommonJS; its runtime is what matters here.
      const client: any = new GitBookAPI({ authToken: org.admin.token, endpoint: stack.baseUrl });
      const created = await client.orgs.createSiteRedirect(org.id, siteId, { source: '/client/*', destination: { kind: 'site-space', siteSpaceId } });
      assert.equal(created.status, 201);
      const listed = await client.orgs.listSiteRedirects(org.id, siteId, { orderBy: 'source' });
      assert.ok(listed.data.items.some((r: { id: string }) => r.id === created.data.id));
      const found = await client.orgs.getSiteRedirectBySource(org.id, siteId, { source: '/client/*' });
      assert.equal(found.data.target, `${stack.baseUrl}${base}`);
      const updated = await client.orgs.updateSiteRedirectById(org.id, siteId, created.data.id, { permanent: true });
      assert.equal(updated.data.permanent, true);
      const bulk = await client.orgs.bulkUpsertSiteRedirects(org.id, siteId, { redirects: [{ source: '/client/*', destination: null }] });
      assert.equal(bulk.data.results[0].status, 'deleted');
      assert.equal((await client.orgs.deleteSiteRedirectById(org.id, siteId, created.data.id)).status, 204);
    });

    it('answers the same create sent twice at once with one redirect, never a 500', async () => {
      const body = { source: '/twice', destination: { kind: 'site-space', siteSpaceId } };
      const answers = await Promise.all([admin.post(redirects(), body), admin.post(redirects(), body), admin.post(redirects(), body)]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409], JSON.stringify(answers.map((a) => a.body)));
      const id = answers.find((a) => a.status === 201)!.body.id;
      const deletes = await Promise.all([admin.delete(`${redirects()}/${id}`), admin.delete(`${redirects()}/${id}`)]);
      assert.deepEqual(
        deletes.map((a) => a.status),
        [204, 204],
      );
      assert.equal((await admin.get(`${redirects()}?search=twice`)).body.count, 0, 'deleted');
    });
  });
});
