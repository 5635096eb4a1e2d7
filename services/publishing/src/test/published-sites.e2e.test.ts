import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import jwt from 'jsonwebtoken';
import { createEventBus, EVENTS, type EventOf } from '@quire/async';
import { createLogger } from '@quire/runtime';
import { startTestStack, type TestOrganization, type TestStack } from '@quire/testkit';

/*
 * Published sites as their visitors get them, through the gateway: pages, navigation, sections
 * and variants, caching, audiences, crawlers and agents, search. No login anywhere below
 * (except the API calls that set the sites up).
 */

type Org = TestOrganization<'read'>;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

interface Page {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
}

/** Where signed downloads are served: a host of its own, reached (as sites' hosts are) by its Host header. */
const FILES_BASE_URL = 'http://files.published.test';

describe('published sites, as their visitors get them', () => {
  let stack: TestStack;
  let org: Org;
  let guides: string;
  let api: string;
  let guidesV2: string;
  const pageIds: Record<string, string> = {};
  let fileId: string;

  const visit = async (path: string, headers: Record<string, string> = {}): Promise<Page> => {
    if (headers.host) return visitHost(path, headers);
    const url = path.startsWith('http') ? path : `${stack.baseUrl}${path}`;
    const response = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { status: response.status, headers: response.headers, text: bytes.toString('utf8'), bytes };
  };
  const pathOf = (url: string) => new URL(url).pathname;
  /** Past the moment after a site's change in which the gateway keeps no 304 of it (site-revisits.ts SETTLE_MS). */
  const settled = () => new Promise((resolve) => setTimeout(resolve, 1_100));
  /** A signed download: asked on the files host, as a browser would. */
  const download = (url: string) => {
    const address = new URL(url);
    assert.equal(address.origin, FILES_BASE_URL, url);
    return visit(`${address.pathname}${address.search}`, { host: address.host });
  };
  /** fetch() cannot send another Host: a site's own hostname is asked with node:http, to the gateway. */
  const visitHost = (path: string, headers: Record<string, string>) =>
    new Promise<Page>((resolve, reject) => {
      const gateway = new URL(stack.baseUrl);
      const request = httpRequest({ host: gateway.hostname, port: gateway.port, path, headers, timeout: 30_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(', ') : value);
          const bytes = Buffer.concat(chunks);
          resolve({ status: response.statusCode ?? 0, headers: answer, text: bytes.toString('utf8'), bytes });
        });
      });
      request.on('error', reject);
      request.end();
    });

  /** Writes pages into a space through a change request, merged. */
  const write = async (spaceId: string, changes: unknown[]) => {
    const cr = await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Pages' });
    assert.equal(cr.status, 201, JSON.stringify(cr.body));
    const written = await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content?compat=false`, { changes });
    assert.equal(written.status, 200, JSON.stringify(written.body));
    const merged = await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/merge`);
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    return written.body;
  };
  const newSpace = async (title: string) => {
    const created = await org.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id as string;
  };
  const sites = () => `/v1/orgs/${org.id}/sites`;
  const newSite = async (body: Record<string, unknown>, publish = true) => {
    const created = await org.admin.api.post(sites(), body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    if (!publish) return created.body;
    const published = await org.admin.api.post(`${sites()}/${created.body.id}/publish`);
    assert.equal(published.status, 200, JSON.stringify(published.body));
    return published.body;
  };

  beforeAll(async () => {
    stack = await startTestStack({ FILES_BASE_URL });
    org = await stack.organization({ domain: 'published.test', title: 'Published', roles: ['read'] as const });
    guides = await newSpace('Guides');
    api = await newSpace('API');
    guidesV2 = await newSpace('Guides v2');
    const first = await write(guides, [
      { type: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', data: PNG.toString('base64') }] },
      {
        type: 'insert_page',
        ref: 'intro',
        title: 'Introduction',
        slug: 'introduction',
        description: 'Start here.',
        markdown: 'Welcome to the **guides**.\n\n## Overview\n\nWhat this is.\n\n## Overview\n\nAgain.',
      },
      {
        type: 'insert_page',
        ref: 'install',
        title: 'Install',
        slug: 'install',
        markdown: '## Requirements\n\nA kettle.\n\n### Linux\n\nUse the zebrafish package.',
      },
      { type: 'insert_page', ref: 'linux', into: 'install', title: 'On Linux', slug: 'linux', markdown: 'Back to [the start](/pages/intro-placeholder).' },
      { type: 'insert_page', ref: 'secret', title: 'Hidden notes', slug: 'hidden-notes', hidden: true, markdown: 'Not in the navigation.' },
      { type: 'insert_page', ref: 'last', title: 'Configure', slug: 'configure', markdown: 'Raw <script>alert(1)</script> stays text.' },
    ]);
    fileId = first.insertedFiles[0].id;
    const ids = first.changes.filter((c: any) => c.page).map((c: any) => c.page.id);
    assert.equal(ids.length, 5, JSON.stringify(first.changes));
    [pageIds.intro, pageIds.install, pageIds.linux, pageIds.secret, pageIds.configure] = ids;
    await write(guides, [
      {
        type: 'update_page',
        page: pageIds.linux,
        noIndex: true,
        markdown: `Back to [the start](/pages/${pageIds.intro}#overview) and a [gone page](/pages/nowhere).\n\n![The logo](/files/${fileId})`,
      },
      { type: 'update_page', page: pageIds.configure, noRobotsIndex: true },
    ]);
    await write(api, [{ type: 'insert_page', title: 'Endpoints', slug: 'endpoints', markdown: '## GET /things\n\nLists things.' }]);
    await write(guidesV2, [{ type: 'insert_page', title: 'What is new', slug: 'new', markdown: 'Version two.' }]);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('serves a published site at urls.published under the gateway, with navigation, outline and neighbours', async () => {
    const site = await newSite({ title: 'Handbook', spaces: [guides] });
    assert.equal(site.urls.published, `${stack.baseUrl}/sites/${org.id}/${site.id}/`);
    const home = await visit(site.urls.published);
    assert.equal(home.status, 200, home.text);
    assert.match(home.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(home.text, /<html lang="en"[ >]/);
    assert.match(home.text, /<title>Introduction \| Handbook<\/title>/);
    assert.match(home.text, /<h1>Introduction<\/h1>/);
    assert.match(home.text, /<p class="description">Start here\.<\/p>/);
    // Heading anchors, unique, and the outline pointing at them.
    assert.match(home.text, /<h2 id="overview">Overview <a class="anchor" href="#overview"/);
    assert.match(home.text, /<h2 id="overview-1">/);
    assert.match(home.text, /<aside class="outline"[^>]*>.*href="#overview".*href="#overview-1"/s);
    // Navigation: the current page marked, hidden pages left out, children nested.
    const base = pathOf(site.urls.published);
    assert.match(home.text, new RegExp(`<a href="${base}" aria-current="page">Introduction</a>`));
    assert.match(home.text, new RegExp(`<a href="${base}install">Install</a><ul><li><a href="${base}install/linux">On Linux</a>`));
    assert.doesNotMatch(home.text, /Hidden notes/);
    assert.match(home.text, new RegExp(`<a rel="next" href="${base}install">`));
    assert.doesNotMatch(home.text, /rel="prev"/);
    // A public site may be indexed.
    assert.doesNotMatch(home.text, /noindex/);
    assert.equal(home.headers.get('x-robots-tag'), null);
    assert.match(home.headers.get('content-security-policy') ?? '', /default-src 'none'/);

    const install = await visit(`${base}install`);
    assert.equal(install.status, 200);
    assert.match(install.text, new RegExp(`<a rel="prev" href="${base}">`));
    assert.match(install.text, new RegExp(`<a rel="next" href="${base}install/linux">`));
    assert.match(install.text, /<h3 id="linux">/, 'a body without h1 keeps its levels');

    // Internal links become the site's addresses; a missing target loses its link; files are served.
    const linux = await visit(`${base}install/linux`);
    assert.equal(linux.status, 200);
    assert.match(linux.text, new RegExp(`<a href="${base}#overview">the start</a>`));
    assert.match(linux.text, /<a>gone page<\/a>/);
    const image = new RegExp(`<img src="(${base}~/files/${guides}/${fileId})" alt="The logo"`).exec(linux.text);
    assert.ok(image, linux.text);
    const file = await visit(image[1]);
    assert.equal(file.status, 302);
    const bytes = await download(file.headers.get('location') as string);
    assert.equal(bytes.status, 200);
    assert.deepEqual(bytes.bytes, PNG);
    assert.equal((await visit(`${base}~/files/${guides}/unknown-file`)).status, 404);
    assert.equal((await visit(`${base}~/files/${api}/${fileId}`)).status, 404, 'a space the site does not show');

    // Hidden pages answer by their address, kept out of search engines.
    const hidden = await visit(`${base}hidden-notes`);
    assert.equal(hidden.status, 200);
    assert.match(hidden.text, /<meta name="robots" content="noindex, nofollow">/);
    // Raw HTML of a page is text, never markup.
    assert.match((await visit(`${base}configure`)).text, /Raw &lt;script&gt;alert\(1\)&lt;\/script&gt; stays text\./);

    // The root without its slash is sent to it; unknown pages and sites are 404 pages.
    const bare = await visit(base.slice(0, -1));
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), base);
    for (const missing of [`${base}nope`, `${base}install/nope`, `/sites/${org.id}/unknown-site/`, `/sites/unknown-org/${site.id}/`]) {
      const answer = await visit(missing);
      assert.equal(answer.status, 404, missing);
      assert.match(answer.text, /<h1>Page not found<\/h1>/);
    }
  });

  it('sends visitors to a file on the files host, which answers the download and nothing else', async () => {
    const site = await newSite({ title: 'Files host', spaces: [guides] });
    const base = pathOf(site.urls.published);
    const page = await visit(`${base}install/linux`);
    assert.equal(page.status, 200);
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      new RegExp(`img-src 'self' https: data: ${FILES_BASE_URL};`),
      'its images may come from there',
    );
    const redirect = await visit(`${base}~/files/${guides}/${fileId}`);
    assert.equal(redirect.status, 302);
    const signed = new URL(redirect.headers.get('location') as string);
    const image = await download(signed.href);
    assert.equal(image.status, 200);
    assert.deepEqual(
      ['content-type', 'content-disposition', 'content-security-policy', 'x-content-type-options', 'cross-origin-resource-policy'].map((name) =>
        image.headers.get(name),
      ),
      ['image/png', `inline; filename="logo.png"; filename*=UTF-8''logo.png`, "sandbox; default-src 'none'", 'nosniff', 'cross-origin'],
    );
    assert.deepEqual(image.bytes, PNG);

    // The address signed for the files host does not open on the API's, nor on a site's host.
    const signedPath = `${signed.pathname}${signed.search}`;
    assert.equal((await visit(signedPath)).status, 404);
    assert.equal((await visit(signedPath, { host: 'docs.hosted.test' })).status, 404);
    // On the files host, nothing but downloads: no site, no API (even with a token), no page of ours.
    const onFiles = { host: signed.host, authorization: `Bearer ${org.admin.token}` };
    for (const path of [
      base,
      `${base}install`,
      `${base}~/site.css`,
      `${base}~/files/${guides}/${fileId}`,
      '/',
      '/v1/user',
      '/v1/openapi.json',
      '/docs',
      '/healthz',
    ]) {
      const answer = await visit(path, onFiles);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.headers.get('content-type') ?? '', /html/, path);
      assert.equal(answer.headers.get('set-cookie'), null, path);
    }
  });

  it('answers 304 to a revisit of an unchanged page, and shows a merge at once', async () => {
    const site = await newSite({ title: 'Cached', spaces: [api] });
    const base = pathOf(site.urls.published);
    const first = await visit(base);
    const etag = first.headers.get('etag') as string;
    assert.match(etag, /^"[\w-]+"$/);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=0, must-revalidate');
    // Once the site's publication has settled, the gateway keeps the first revisit's 304 and answers the next ones (site-revisits.ts): the same answer.
    await settled();
    const revisits = [await visit(base, { 'if-none-match': etag }), await visit(base, { 'if-none-match': etag })];
    for (const again of revisits) {
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers.get('etag'), first.headers.get('etag'));
      assert.equal(again.headers.get('content-security-policy'), first.headers.get('content-security-policy'));
      assert.equal(again.headers.get('x-quire-shared'), null, "publishing's word to the gateway stays there");
    }
    // 10 visitors at once on a page nobody rendered yet: one answer for all.
    const cold = await Promise.all(Array.from({ length: 10 }, () => visit(`${base}endpoints`)));
    assert.deepEqual(new Set(cold.map((c) => `${c.status} ${c.headers.get('etag')}`)).size, 1);

    // Gzip for who takes it, as another representation (its own ETag); a revisit with either tag is a 304.
    const plain = await visit(base, { 'accept-encoding': 'identity' });
    const zipped = await visit(base, { 'accept-encoding': 'gzip' });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    for (const answer of [plain, zipped]) assert.match(answer.headers.get('vary') ?? '', /Accept-Encoding/i);
    assert.equal(zipped.text, plain.text, 'the same page once decoded');
    assert.equal(plain.headers.get('etag'), etag.replace(/-gz"$/, '"'));
    assert.equal(zipped.headers.get('etag'), `${(plain.headers.get('etag') as string).slice(0, -1)}-gz"`);
    for (const tag of [plain.headers.get('etag'), zipped.headers.get('etag')]) {
      const revisit = await visit(base, { 'accept-encoding': 'gzip', 'if-none-match': tag as string });
      assert.equal(revisit.status, 304, tag as string);
      assert.equal(revisit.headers.get('etag'), zipped.headers.get('etag'));
    }
    // The pages name the stylesheet with its digest: that address is cached for good, any other revalidated.
    const linked = /<link rel="stylesheet" href="([^"]+\/~\/site\.css\?v=[\w-]+)">/.exec(zipped.text)?.[1];
    assert.ok(linked, 'the page links the stylesheet by its digest');
    const stylesheet = await visit(linked, { 'accept-encoding': 'gzip' });
    assert.equal(stylesheet.headers.get('content-encoding'), 'gzip');
    assert.match(stylesheet.text, /body\s*\{/);
    assert.equal(stylesheet.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const unversioned = await visit(`${base}~/site.css`);
    assert.equal(unversioned.text, stylesheet.text);
    assert.equal(unversioned.headers.get('cache-control'), 'public, max-age=0, must-revalidate');

    await write(api, [{ type: 'insert_page', title: 'Errors', slug: 'errors', markdown: 'Codes.' }]);
    const after = await visit(base, { 'if-none-match': etag });
    assert.equal(after.status, 200, 'the merge changed the page (its navigation)');
    assert.notEqual(after.headers.get('etag'), etag);
    assert.match(after.text, />Errors</);
    // A page the merge did not touch keeps its body: taken from the revision read before (content sent only the bodies that changed).
    assert.match((await visit(`${base}endpoints`)).text, /Lists things\./);

    // A renamed site changes every page too.
    await org.admin.api.patch(`${sites()}/${site.id}`, { title: 'Cached docs' });
    const renamed = await visit(base, { 'if-none-match': after.headers.get('etag') as string });
    assert.equal(renamed.status, 200);
    assert.match(renamed.text, /Cached docs/);
  });

  it("honours each page's layout: a page without table of contents, outline and pager beside pages with them, a layout change shown at once", async () => {
    const space = await newSpace('Layouts');
    const written = await write(space, [
      { type: 'insert_page', title: 'Overview', slug: 'overview', markdown: '## First\n\nText.' },
      { type: 'insert_page', ref: 'landing', title: 'Landing', slug: 'landing', markdown: '## Hero\n\nBig.' },
      { type: 'update_page', page: 'landing', layout: { tableOfContents: false, outline: false, pagination: false } },
      { type: 'insert_page', title: 'Details', slug: 'details', markdown: '## More\n\nText.' },
    ]);
    const landingId = written.changes[1].page.id;
    const site = await newSite({ title: 'Laid out', spaces: [space] });
    const base = pathOf(site.urls.published);
    const landing = await visit(`${base}landing`);
    assert.equal(landing.status, 200, landing.text);
    assert.match(landing.text, /<div class="layout no-toc no-outline"><div class="sidebar"><\/div>/);
    assert.match(landing.text, /<h1>Landing<\/h1>/);
    assert.match(landing.text, /<h2 id="hero">/);
    assert.doesNotMatch(landing.text, /<nav class="pages"/, 'no table of contents');
    assert.doesNotMatch(landing.text, /<aside class="outline"/, 'no outline');
    assert.doesNotMatch(landing.text, /<nav class="pager"|rel="(prev|next)"/, 'no previous and next links');
    for (const path of [base, `${base}details`]) {
      const other = await visit(path);
      assert.equal(other.status, 200, path);
      assert.match(other.text, /<div class="layout"><div class="sidebar"><nav class="pages" aria-label="Pages">/, path);
      assert.match(other.text, /<aside class="outline"[^>]*>.*href="#(first|more)"/s, path);
      assert.match(other.text, new RegExp(`<nav class="pager" aria-label="Previous and next"><a rel="(next|prev)" href="${base}landing">`), path);
    }

    // A layout change is a new revision: the page's ETag changes, and the next visit shows it.
    const etag = landing.headers.get('etag') as string;
    await write(space, [{ type: 'update_page', page: landingId, layout: { tableOfContents: true, width: 'wide' } }]);
    const after = await visit(`${base}landing`, { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
    assert.match(after.text, /<div class="layout no-outline wide"><div class="sidebar"><nav class="pages" aria-label="Pages">/);
    assert.doesNotMatch(after.text, /<nav class="pager"/, 'the options not changed are kept');
  });

  it('shows sections as tabs and a section’s site spaces as variants', async () => {
    const site = await newSite({ title: 'Product', spaces: [guides] });
    const apiSection = await org.admin.api.post(`${sites()}/${site.id}/sections`, { spaceId: api, title: 'API reference' });
    assert.equal(apiSection.status, 201, JSON.stringify(apiSection.body));
    const sections = (await org.admin.api.get(`${sites()}/${site.id}/sections`)).body.items;
    const main = sections.find((s: any) => s.default);
    const v2 = await org.admin.api.post(`${sites()}/${site.id}/site-spaces`, { spaceId: guidesV2, sectionId: main.id });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const base = pathOf(site.urls.published);

    const home = await visit(base);
    assert.equal(home.status, 200);
    assert.match(
      home.text,
      new RegExp(
        `<nav class="sections" aria-label="Sections"><ul><li><a href="${base}" aria-current="page">${main.title}</a></li><li><a href="${base}${apiSection.body.path}/">API reference</a>`,
      ),
    );
    assert.match(home.text, /<nav class="variants" aria-label="Variants"><details><summary>Guides<\/summary>/);
    assert.match(home.text, new RegExp(`<a href="${base}${v2.body.path}/">Guides v2</a>`));

    const variant = await visit(`${base}${v2.body.path}/`);
    assert.equal(variant.status, 200);
    assert.match(variant.text, /<h1>What is new<\/h1>/);
    assert.match(variant.text, new RegExp(`<a href="${base}${v2.body.path}/" aria-current="page">Guides v2</a>`));

    const reference = await visit(`${base}${apiSection.body.path}/endpoints`);
    assert.equal(reference.status, 200);
    assert.match(reference.text, new RegExp(`<a href="${base}${apiSection.body.path}/" aria-current="page">API reference</a>`));
    assert.match(reference.text, /<h2 id="get-things">GET \/things/);

    // A section group is a disclosure menu of its sections among the tabs.
    const group = await org.admin.api.post(`${sites()}/${site.id}/section-groups`, { title: 'Developers', sections: [apiSection.body.id] });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const grouped = await visit(`${base}${apiSection.body.path}/`);
    assert.match(
      grouped.text,
      new RegExp(
        `<li class="tab-group"><details open><summary>Developers</summary><ul><li><a href="${base}${apiSection.body.path}/" aria-current="page">API reference</a></li></ul></details></li>`,
      ),
    );

    // urls.published of sections and site spaces answer.
    for (const section of (await org.admin.api.get(`${sites()}/${site.id}/sections`)).body.items) {
      assert.equal((await visit(section.urls.published)).status, 200, section.urls.published);
      for (const siteSpace of section.siteSpaces) assert.equal((await visit(siteSpace.urls.published)).status, 200, siteSpace.urls.published);
    }
  });

  it('links a page to itself in the other variants, and to its other languages with hreflang', async () => {
    const spaceIn = async (title: string, language: string) => {
      const created = await org.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title, language });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    };
    const [english, german] = await Promise.all([spaceIn('Manual', 'en'), spaceIn('Handbuch', 'de')]);
    await write(english, [
      { type: 'insert_page', title: 'Intro', slug: 'intro', markdown: 'Hello.' },
      { type: 'insert_page', title: 'Setup', slug: 'setup', markdown: 'Set it up.' },
      { type: 'insert_page', title: 'Only in English', slug: 'only-en', markdown: 'English.' },
    ]);
    await write(german, [
      { type: 'insert_page', title: 'Einführung', slug: 'intro', markdown: 'Hallo.' },
      { type: 'insert_page', title: 'Einrichtung', slug: 'setup', markdown: 'Einrichten.' },
    ]);
    const site = await newSite({ title: 'Multilingual', spaces: [english] });
    const added = await org.admin.api.post(`${sites()}/${site.id}/site-spaces`, { spaceId: german });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const base = pathOf(site.urls.published);
    const de = `${base}${added.body.path}/`;
    const alternates = (text: string) => [...text.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">/g)].map((m) => [m[1], pathOf(m[2])]);

    const setup = await visit(`${base}setup`);
    assert.equal(setup.status, 200);
    assert.deepEqual(alternates(setup.text), [
      ['en', `${base}setup`],
      ['de', `${de}setup`],
      ['x-default', `${base}setup`],
    ]);
    assert.match(setup.text, new RegExp(`<a href="${de}setup">Handbuch</a>`), 'the switcher leads to the same page');

    const german_ = await visit(`${de}setup`);
    assert.match(german_.text, /<html lang="de"[ >]/);
    assert.deepEqual(alternates(german_.text), [
      ['de', `${de}setup`],
      ['en', `${base}setup`],
      ['x-default', `${base}setup`],
    ]);
    assert.match(german_.text, new RegExp(`<a href="${base}setup">Manual</a>`));

    const home = await visit(base);
    assert.deepEqual(alternates(home.text), [
      ['en', base],
      ['de', de],
      ['x-default', base],
    ]);

    // A space's language changes without a new revision: its pages follow at once.
    const patched = await org.admin.api.patch(`/v1/spaces/${german}`, { language: 'fr' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const french = await visit(`${de}setup`);
    assert.match(french.text, /<html lang="fr"[ >]/);
    assert.deepEqual(
      alternates(french.text).map(([lang]) => lang),
      ['fr', 'en', 'x-default'],
    );

    // A page one variant lacks: no alternates, and the switcher leads to the other variant's root.
    const only = await visit(`${base}only-en`);
    assert.deepEqual(alternates(only.text), []);
    assert.match(only.text, new RegExp(`<a href="${de}">Handbuch</a>`));
  });

  it('serves a site by its own hostname and keeps crawlers to what its visibility allows', async () => {
    const site = await newSite({ title: 'Hosted', spaces: [guides] });
    const patched = await org.admin.api.patch(`${sites()}/${site.id}`, { hostname: 'docs.hosted.test' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.urls.published, 'https://docs.hosted.test/');
    // A hostname is one site's: another site, of this organization or any other, cannot take it.
    const squatter = await newSite({ title: 'Squatter', spaces: [api] });
    const taken = await org.admin.api.patch(`${sites()}/${squatter.id}`, { hostname: 'docs.hosted.test' });
    assert.equal(taken.status, 409);
    assert.match(taken.body.error.message, /hostname/);
    const foreign = await org.outsider.api.post(`/v1/orgs/${org.outsider.organizationId}/sites`, { title: 'Foreign' });
    assert.equal(foreign.status, 201, JSON.stringify(foreign.body));
    assert.equal(
      (await org.outsider.api.patch(`/v1/orgs/${org.outsider.organizationId}/sites/${foreign.body.id}`, { hostname: 'docs.hosted.test' })).status,
      409,
    );
    // A basename names one site of its organization (another organization may use it).
    assert.equal((await org.admin.api.patch(`${sites()}/${site.id}`, { basename: 'hosted' })).status, 200);
    const clash = await org.admin.api.patch(`${sites()}/${squatter.id}`, { basename: 'hosted' });
    assert.equal(clash.status, 409);
    assert.match(clash.body.error.message, /basename/);
    assert.equal((await org.outsider.api.patch(`/v1/orgs/${org.outsider.organizationId}/sites/${foreign.body.id}`, { basename: 'hosted' })).status, 200);
    const host = { host: 'docs.hosted.test' };
    const home = await visit('/', host);
    assert.equal(home.status, 200, home.text);
    assert.match(home.text, /<a class="site-title" href="\/">Hosted<\/a>/);
    assert.match(home.text, /<link rel="canonical" href="https:\/\/docs\.hosted\.test\/">/);
    assert.equal((await visit('/install/linux', host)).status, 200);
    assert.equal((await visit('/', { host: 'unknown.hosted.test' })).status, 404);

    const robots = await visit('/robots.txt', host);
    assert.equal(robots.status, 200);
    assert.match(robots.text, /User-agent: \*\nAllow: \//);
    assert.match(robots.text, /Sitemap: https:\/\/docs\.hosted\.test\/sitemap\.xml/);
    const sitemap = await visit('/sitemap.xml', host);
    assert.equal(sitemap.status, 200);
    assert.match(sitemap.headers.get('content-type') ?? '', /xml/);
    const locations = [...sitemap.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    assert.deepEqual(
      locations,
      ['https://docs.hosted.test/', 'https://docs.hosted.test/install', 'https://docs.hosted.test/install/linux'],
      'neither hidden nor noRobotsIndex pages',
    );
    const configure = await visit('/configure', host);
    assert.equal(configure.headers.get('x-robots-tag'), 'noindex');
    assert.match(configure.text, /<meta name="robots" content="noindex, nofollow">/);

    // Unlisted: open, but nothing may be indexed.
    await org.admin.api.patch(`${sites()}/${site.id}`, { visibility: 'unlisted' });
    const unlisted = await visit('/', host);
    assert.equal(unlisted.status, 200);
    assert.equal(unlisted.headers.get('x-robots-tag'), 'noindex, nofollow');
    assert.match(unlisted.text, /<meta name="robots" content="noindex, nofollow">/);
    assert.equal((await visit('/sitemap.xml', host)).status, 404);
    assert.equal((await visit('/robots.txt', host)).text, 'User-agent: *\nDisallow: /\n');

    // Unpublished, then deleted: gone.
    await org.admin.api.post(`${sites()}/${site.id}/unpublish`);
    assert.equal((await visit('/', host)).status, 404);
    await org.admin.api.post(`${sites()}/${site.id}/publish`);
    assert.equal((await visit('/', host)).status, 200);
    assert.equal((await org.admin.api.delete(`${sites()}/${site.id}`)).status, 204);
    assert.equal((await visit('/', host)).status, 404);
  });

  it('opens a share-link site only with an active link’s key, then by its cookie', async () => {
    const site = await newSite({ title: 'Shared', spaces: [guides], visibility: 'share-link' });
    const link = await org.admin.api.post(`${sites()}/${site.id}/share-links`, { name: 'Partners' });
    assert.equal(link.status, 201, JSON.stringify(link.body));
    const base = pathOf(site.urls.published);
    assert.equal((await visit(base)).status, 404, 'no key: as if there were no site');
    assert.equal((await visit(`${base}?share=not-a-key`)).status, 404);

    // The link's own address opens the site; the key it carries works on any page.
    const key = new URL(link.body.urls.published).searchParams.get('share') as string;
    assert.equal((await visit(link.body.urls.published)).status, 302);
    const opened = await visit(`${base}install?share=${key}`);
    assert.equal(opened.status, 302);
    assert.equal(opened.headers.get('location'), `${base}install`, 'the key leaves the address');
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0];
    assert.match(opened.headers.get('set-cookie') ?? '', new RegExp(`HttpOnly.*|Path=${base}`, 'i'));
    // The space's address through the share key (content asks publishing) opens it too.
    const space = await org.admin.api.get(`/v1/spaces/${guides}?shareKey=${key}`);
    assert.equal(space.status, 200, JSON.stringify(space.body));
    assert.equal(space.body.urls.published, `${stack.baseUrl}${base}?share=${key}`);
    assert.equal((await visit(space.body.urls.published)).status, 302);
    const page = await visit(`${base}install`, { cookie });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('cache-control'), 'private, no-cache');
    // A revisit with the key is a 304 every time; the same revisit without it is never one (the gateway keeps no 304 of such a site).
    const revisit = { 'if-none-match': page.headers.get('etag') as string };
    for (let i = 0; i < 3; i++) assert.equal((await visit(`${base}install`, { ...revisit, cookie })).status, 304);
    assert.equal((await visit(`${base}install`, revisit)).status, 404, 'no key: as if there were no site');
    assert.equal(page.headers.get('x-robots-tag'), 'noindex, nofollow');
    assert.equal((await visit(`${base}sitemap.xml`, { cookie })).status, 404);
    // What a page loads besides itself (its theme stylesheet, its fonts) is the site's too: nothing without the key.
    const theme = /href="([^"]+~\/theme\/[^"]+\.css)"/.exec(page.text)?.[1] as string;
    const font = `${base}~/fonts/inter-latin-400-normal.woff2`;
    assert.equal((await visit(theme, { cookie })).status, 200);
    assert.equal((await visit(font, { cookie })).status, 200);
    assert.deepEqual([(await visit(theme)).status, (await visit(font)).status], [404, 404], 'as if there were no site');

    await org.admin.api.patch(`${sites()}/${site.id}/share-links/${link.body.id}`, { active: false });
    assert.equal((await visit(`${base}install`, { cookie })).status, 404, 'a revoked link closes the site');
    assert.equal((await visit(`${base}?share=${key}`)).status, 404);
  });

  it('opens a visitor-auth site with a token signed by its key, and adapts it to the claims', async () => {
    const site = await newSite({ title: 'Members', spaces: [guides], visibility: 'visitor-auth' });
    const beta = await org.admin.api.post(`${sites()}/${site.id}/sections`, { spaceId: api, title: 'Beta API' });
    await org.admin.api.patch(`${sites()}/${site.id}/sections/${beta.body.id}`, { condition: 'visitor.claims.beta == true' });
    const auth = await org.admin.api.get(`${sites()}/${site.id}/publishing/auth`);
    assert.equal(auth.status, 200, JSON.stringify(auth.body));
    const base = pathOf(site.urls.published);
    const sign = (claims: object, key = auth.body.privateKey) => jwt.sign(claims, key, { algorithm: 'HS256', expiresIn: '1h' });

    const anonymous = await visit(base);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.text, /Sign in/);

    const entered = await visit(`${base}?jwt_token=${sign({ name: 'Ada' })}`);
    assert.equal(entered.status, 302);
    assert.equal(entered.headers.get('location'), base);
    const cookie = (entered.headers.get('set-cookie') ?? '').split(';')[0];
    const plain = await visit(base, { cookie });
    assert.equal(plain.status, 200);
    assert.doesNotMatch(plain.text, /Beta API/, 'a section whose condition is false is not shown');
    assert.equal((await visit(`${base}${beta.body.path}/endpoints`, { cookie })).status, 404, 'nor are its pages');

    const betaCookie = ((await visit(`${base}?jwt_token=${sign({ beta: true })}`)).headers.get('set-cookie') ?? '').split(';')[0];
    const withBeta = await visit(base, { cookie: betaCookie });
    assert.match(withBeta.text, /Beta API/);
    assert.equal((await visit(`${base}${beta.body.path}/endpoints`, { cookie: betaCookie })).status, 200);
    assert.notEqual(withBeta.headers.get('etag'), plain.headers.get('etag'), 'what a visitor sees is part of the ETag');

    // Tampered, foreign-key and expired tokens are refused.
    const token = sign({ beta: true });
    const [head, body, signature] = token.split('.');
    const forged = `${head}.${Buffer.from(JSON.stringify({ beta: true, admin: true })).toString('base64url')}.${signature}`;
    for (const bad of [forged, sign({}, 'another-key-another-key-another-key'), jwt.sign({ exp: Math.floor(Date.now() / 1000) - 60 }, auth.body.privateKey)]) {
      assert.equal((await visit(`${base}?jwt_token=${bad}`)).status, 401);
      assert.equal((await visit(base, { cookie: `quire_visitor=${bad}` })).status, 401);
    }
    assert.equal(body.length > 0, true);

    // With a fallback address, a visitor without a token is sent there to sign in.
    await org.admin.api.patch(`${sites()}/${site.id}/publishing/auth`, { fallbackURL: 'https://login.example.com/start' });
    const sent = await visit(`${base}install`);
    assert.equal(sent.status, 302);
    assert.equal(sent.headers.get('location'), `https://login.example.com/start?location=${encodeURIComponent(`${base}install`)}`);
  });

  it('gives AI agents llms.txt, llms-full.txt and markdown pages, unless the site excludes them', async () => {
    const site = await newSite({ title: 'Agents', spaces: [guides] });
    const base = pathOf(site.urls.published);
    const llms = await visit(`${base}llms.txt`);
    assert.equal(llms.status, 200);
    assert.match(llms.text, /^# Agents\n/);
    assert.ok(llms.text.includes(`- [Install](${stack.baseUrl}${base}install.md)`), llms.text);
    assert.doesNotMatch(llms.text, /Hidden notes/);
    assert.doesNotMatch(llms.text, /On Linux/, 'a noIndex page is not given to agents');
    assert.match(llms.text, /Configure/, 'noRobotsIndex is about search engines only');
    const markdown = await visit(`${base}install.md`);
    assert.equal(markdown.status, 200);
    assert.match(markdown.headers.get('content-type') ?? '', /^text\/markdown/);
    assert.match(markdown.text, /^# Install\n\n## Requirements/);
    assert.match((await visit(base)).text, new RegExp(`<link rel="alternate" type="text/markdown" href="${base}introduction.md">`));
    // llms-full.txt: every page llms.txt lists, in its order, each whole as at its .md address.
    const full = await visit(`${base}llms-full.txt`);
    assert.equal(full.status, 200);
    assert.match(full.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(full.text, /^# Agents\n/);
    const sources = [...full.text.matchAll(/^Source: (\S+)$/gm)].map((match) => match[1]);
    assert.deepEqual(
      sources,
      [...llms.text.matchAll(/^- \[[^\]]*\]\((\S+)\)/gm)].map((match) => match[1]),
      'the pages of llms.txt, in its order',
    );
    assert.ok(full.text.includes(`Source: ${stack.baseUrl}${base}install.md\n\n${markdown.text}`), 'each page whole, as at its .md address');
    assert.doesNotMatch(full.text, /Hidden notes|On Linux/);

    await org.admin.api.patch(`${sites()}/${site.id}`, { agentsContext: 'excluded' });
    assert.equal((await visit(`${base}llms.txt`)).status, 404);
    assert.equal((await visit(`${base}llms-full.txt`)).status, 404);
    assert.equal((await visit(`${base}install.md`)).status, 404);
    const robots = await visit(`${base}robots.txt`);
    assert.match(robots.text, /User-agent: GPTBot\nDisallow: \//);
    assert.doesNotMatch((await visit(base)).text, /text\/markdown/);
  });

  it("answers agents at the site's MCP endpoint (the SDK's own client): tools to search and read pages, pages as resources, under the site's audience", async () => {
    const site = await newSite({ title: 'Agent tools', spaces: [guides] });
    const base = pathOf(site.urls.published);
    const endpoint = new URL(`${stack.baseUrl}${base}~/mcp`);
    const connect = async (url: URL) => {
      const client = new Client({ name: 'quire-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    };
    const text = (result: any) => (result.content as Array<{ type: string; text: string }>).map((part) => part.text).join('\n');
    const client = await connect(endpoint);
    try {
      assert.equal(client.getServerVersion()?.title, 'Agent tools');
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['read_page', 'search']);
      assert.ok(tools.tools.every((tool) => tool.annotations?.readOnlyHint === true));
      const found = text(await client.callTool({ name: 'search', arguments: { query: 'zebrafish' } }));
      const install = `${stack.baseUrl}${base}install`;
      assert.ok(found.includes(`[Install](${install})`), found);
      const page = await client.callTool({ name: 'read_page', arguments: { url: install } });
      assert.equal(text(page), (await visit(`${base}install.md`)).text, "the page's markdown, as at its .md address");
      const missing = await client.callTool({ name: 'read_page', arguments: { url: `${stack.baseUrl}${base}hidden-notes` } });
      assert.equal(missing.isError, true, 'a hidden page is not given to agents');
      const resources = await client.listResources();
      const uris = resources.resources.map((resource) => resource.uri);
      assert.ok(uris.includes(`${install}.md`), uris.join(', '));
      assert.ok(!uris.some((uri) => /hidden-notes|linux/.test(uri)), 'neither hidden nor noIndex pages');
      const read = await client.readResource({ uri: `${install}.md` });
      assert.match((read.contents[0] as { text: string }).text, /^# Install\n/);
    } finally {
      await client.close();
    }

    // A share-link site: refused without its key (as if there were no site), open with it in the address.
    const shared = await newSite({ title: 'Shared agents', spaces: [guides], visibility: 'share-link' });
    const link = await org.admin.api.post(`${sites()}/${shared.id}/share-links`, { name: 'Agents' });
    const key = new URL(link.body.urls.published).searchParams.get('share') as string;
    const sharedEndpoint = new URL(`${stack.baseUrl}${pathOf(shared.urls.published)}~/mcp`);
    await assert.rejects(connect(sharedEndpoint), (error: { code?: number }) => error.code === 404);
    sharedEndpoint.searchParams.set('share', key);
    const keyed = await connect(sharedEndpoint);
    try {
      assert.match(text(await keyed.callTool({ name: 'search', arguments: { query: 'zebrafish' } })), /\[Install\]/);
    } finally {
      await keyed.close();
    }
    // Off with agentsContext excluded.
    await org.admin.api.patch(`${sites()}/${site.id}`, { agentsContext: 'excluded' });
    await assert.rejects(connect(endpoint), (error: { code?: number }) => error.code === 404);
  });

  it('searches the site without a login, linking results to sections of pages', async () => {
    const site = await newSite({ title: 'Searchable', spaces: [guides] });
    const base = pathOf(site.urls.published);
    const found = await visit(`${base}~/search?q=zebrafish`);
    assert.equal(found.status, 200);
    assert.match(found.text, /<p role="status">1 result<\/p>/);
    assert.match(found.text, new RegExp(`<a href="${base}install">Install</a>`));
    assert.match(found.text, new RegExp(`<a href="${base}install#linux">Linux</a><p>Use the zebrafish package\\.</p>`));
    assert.match((await visit(`${base}~/search?q=nothingmatchesthis`)).text, /No results/);
    assert.match((await visit(`${base}~/search`)).text, /Type words to search for/);
    assert.doesNotMatch((await visit(`${base}~/search?q=notes`)).text, /Hidden notes/, 'hidden pages are not offered');
    assert.match((await visit(`${base}~/search?q=kettle`)).text, /1 result/);
    assert.match((await visit(`${base}~/search?q=gone`)).text, /No results/, 'a noIndex page is not searchable');
  });

  it("is customized through GitBook's site customization operations, and every page shows the change on the next visit", async () => {
    const site = await newSite({ title: 'Branded', spaces: [guides] });
    const customization = `${sites()}/${site.id}/customization`;
    const base = pathOf(site.urls.published);
    const before = await visit(base);
    const defaults = await org.admin.api.get(customization);
    assert.equal(defaults.status, 200, JSON.stringify(defaults.body));
    assert.equal(defaults.body.styling.font, 'Inter');
    assert.deepEqual(defaults.body.themes, { default: 'system', toggeable: true });
    assert.equal(defaults.body.updatedAt, undefined, 'never set');
    // Who may read and change it; another organization learns nothing.
    assert.equal((await org.members.read.api.get(customization)).status, 200);
    assert.equal((await org.members.read.api.put(customization, {})).status, 403);
    assert.equal((await org.outsider.api.get(customization)).status, 404);
    assert.equal((await org.outsider.api.put(customization, {})).status, 404);
    assert.equal((await org.admin.api.get(`${sites()}/nosuchsite/customization`)).status, 404);
    // Bad values are 400s naming the field; nothing is changed by them.
    const bad = async (body: Record<string, unknown>, field: RegExp) => {
      const answer = await org.admin.api.put(customization, body);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.match(answer.body.error.message, field);
    };
    await bad({ styling: { ...defaults.body.styling, primaryColor: { light: 'red', dark: '#000' } } }, /styling\.primaryColor\.light/);
    await bad({ styling: { ...defaults.body.styling, font: 'Comic Sans' } }, /styling\.font/);
    await bad({ header: { preset: 'default', links: [], logo: { light: 'javascript:alert(1)', dark: 'https://x.test/a.png' } } }, /header\.logo\.light/);
    await bad(
      {
        header: {
          preset: 'default',
          links: [],
          logo: { light: `data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`, dark: 'https://x.test/a.png' },
        },
      },
      /header\.logo\.light: must be a PNG, JPEG, GIF or WebP image/,
    );
    assert.equal((await org.admin.api.get(customization)).body.updatedAt, undefined);
    // A logo uploaded with the settings, colours, a banner, header and footer links.
    const logo = `data:image/png;base64,${PNG.toString('base64')}`;
    const put = await org.admin.api.put(customization, {
      title: 'Branded Docs',
      styling: { ...defaults.body.styling, primaryColor: { light: '#c2185b', dark: '#f48fb1' }, font: 'Merriweather', corners: 'circular' },
      header: {
        preset: 'default',
        logo: { light: logo, dark: logo },
        links: [{ title: 'Install it', style: 'button-primary', to: { kind: 'page', page: pageIds.install }, links: [] }],
      },
      footer: {
        groups: [{ title: 'Elsewhere', links: [{ title: 'Status', to: { kind: 'url', url: 'https://status.example.com/' } }] }],
        copyright: '© Branded',
      },
      announcement: { enabled: true, message: 'Version 2 is out', style: 'info' },
      themes: { default: 'light', toggeable: true },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.styling.font, 'Merriweather');
    assert.equal(put.body.ai.mode, 'none', 'a part left out takes its default');
    assert.ok(put.body.updatedAt);
    const logoUrl = put.body.header.logo.light as string;
    assert.equal(new URL(logoUrl).origin, FILES_BASE_URL, 'the uploaded logo is served from the files host');
    assert.equal(put.body.header.logo.dark, logoUrl, 'the same image is stored once');
    assert.deepEqual((await org.admin.api.get(customization)).body, put.body);
    const image = await download(logoUrl);
    assert.equal(image.status, 200);
    assert.deepEqual(image.bytes, PNG);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.equal(image.headers.get('x-content-type-options'), 'nosniff');
    assert.match(image.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.equal((await visit(new URL(logoUrl).pathname)).status, 404, 'not on the API host');
    // The next visit shows it all (the site's version moved: a new ETag).
    const after = await visit(base, { 'if-none-match': before.headers.get('etag') as string });
    assert.equal(after.status, 200);
    assert.match(after.text, /<html lang="en" data-mode="light"/);
    assert.ok(after.text.includes(`<img class="logo" src="${logoUrl}" alt="Branded Docs">`));
    assert.ok(after.text.includes(`<a class="button-primary" href="${base}install">Install it</a>`));
    assert.match(after.text, /<div id="_announcement" class="announcement announcement-info" role="note" data-digest="[\w-]{16}"><p>Version 2 is out<\/p>/);
    assert.ok(after.text.includes('<a href="https://status.example.com/">Status</a>') && after.text.includes('<p>© Branded</p>'));
    const theme = /<link rel="stylesheet" href="([^"]+\/~\/theme\/site\/[\w-]+\.css)">/.exec(after.text)?.[1] as string;
    assert.ok(theme, after.text.slice(0, 2000));
    const css = await visit(theme);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('cache-control') ?? '', /immutable/);
    assert.match(css.text, /--accent:#c2185b/);
    assert.match(css.text, /--radius:14px/);
    const font = /url\(([^)]+merriweather-latin-400-normal\.woff2)\)/.exec(css.text)?.[1] as string;
    assert.ok(font, css.text);
    const fontFile = await visit(font);
    assert.equal(fontFile.status, 200);
    assert.equal(fontFile.headers.get('content-type'), 'font/woff2');
    assert.equal(fontFile.bytes.subarray(0, 4).toString('latin1'), 'wOF2');
    assert.equal((await visit(`${base}~/fonts/nosuch-latin-400-normal.woff2`)).status, 404);
    assert.match(after.headers.get('content-security-policy') ?? '', /font-src 'self'; script-src 'sha256-[\w+/=]+'/);
    // The published structure carries it.
    const published = await org.admin.api.get(`${sites()}/${site.id}/published`);
    assert.equal(published.status, 200);
    assert.deepEqual(published.body.customizations, { site: put.body, siteSpaces: {} });
    // A site space overrides parts of it; two overrides at once both take effect.
    const siteSpaces = await org.admin.api.get(`${sites()}/${site.id}/site-spaces`);
    const siteSpaceId = siteSpaces.body.items[0].id as string;
    const spaceCustomization = `${sites()}/${site.id}/site-spaces/${siteSpaceId}/customization`;
    assert.equal((await org.admin.api.get(spaceCustomization)).body.hasOverrides, false);
    const [colour, banner] = await Promise.all([
      org.admin.api.patch(spaceCustomization, { styling: { primaryColor: { light: '#2e7d32', dark: '#a5d6a7' } } }),
      org.admin.api.patch(spaceCustomization, { announcement: { enabled: true, message: 'Guides moved', style: 'warning' } }),
    ]);
    assert.equal(colour.status, 200, JSON.stringify(colour.body));
    assert.equal(banner.status, 200, JSON.stringify(banner.body));
    const overridden = await org.admin.api.get(spaceCustomization);
    assert.equal(overridden.body.hasOverrides, true);
    assert.equal(overridden.body.styling.primaryColor.light, '#2e7d32');
    assert.equal(overridden.body.announcement.message, 'Guides moved');
    assert.equal(overridden.body.styling.font, 'Merriweather', "the rest is the site's");
    assert.equal((await org.admin.api.patch(spaceCustomization, { styling: { corners: 'pointy' } })).status, 400);
    assert.equal((await org.members.read.api.patch(spaceCustomization, { title: 'No' })).status, 403);
    assert.equal((await org.admin.api.get(`${sites()}/${site.id}/site-spaces/nosuch/customization`)).status, 404);
    assert.deepEqual(Object.keys((await org.admin.api.get(`${sites()}/${site.id}/published`)).body.customizations.siteSpaces), [siteSpaceId]);
    const spacePage = await visit(base);
    assert.ok(spacePage.text.includes('Guides moved') && spacePage.text.includes(`~/theme/${siteSpaceId}/`));
    // null puts the site's value back; DELETE removes every override, and again is a 204.
    const reset = await org.admin.api.patch(spaceCustomization, { announcement: null, styling: { primaryColor: null } });
    assert.equal(reset.status, 200);
    assert.equal(reset.body.hasOverrides, false);
    assert.equal(reset.body.announcement.message, 'Version 2 is out');
    await org.admin.api.patch(spaceCustomization, { title: 'Guides only' });
    assert.equal((await org.admin.api.delete(spaceCustomization)).status, 204);
    assert.equal((await org.admin.api.delete(spaceCustomization)).status, 204);
    assert.equal((await org.admin.api.get(spaceCustomization)).body.hasOverrides, false);
    // GitBook's own client, unchanged: every operation, and the published structure's customizations.
    const client: any = new GitBookAPI({ authToken: org.admin.token, endpoint: stack.baseUrl });
    const read = await client.orgs.getSiteCustomizationById(org.id, site.id);
    assert.equal(read.data.styling.font, 'Merriweather');
    const replaced = await client.orgs.updateSiteCustomizationById(org.id, site.id, { ...read.data, styling: { ...read.data.styling, corners: 'straight' } });
    assert.equal(replaced.data.styling.corners, 'straight');
    const overridden2 = await client.orgs.overrideSiteSpaceCustomizationById(org.id, site.id, siteSpaceId, { title: 'Guides by client' });
    assert.equal(overridden2.data.title, 'Guides by client');
    assert.equal((await client.orgs.getSiteSpaceCustomizationById(org.id, site.id, siteSpaceId)).data.hasOverrides, true);
    const structure = await client.orgs.getPublishedContentSite(org.id, site.id);
    assert.equal(structure.data.customizations.site.styling.corners, 'straight');
    assert.equal(structure.data.customizations.siteSpaces[siteSpaceId].title, 'Guides by client');
    assert.equal((await client.orgs.deleteSiteSpaceCustomizationById(org.id, site.id, siteSpaceId)).status, 204);
    // Replacing the settings without the logo removes the uploaded image.
    assert.equal((await org.admin.api.put(customization, {})).status, 200);
    assert.equal((await download(logoUrl)).status, 404);
    assert.doesNotMatch((await visit(base)).text, /class="logo"/);
  });

  it('asks readers whether a page helped when the customization turns feedback on, and tells integrations each rating', async () => {
    const site = await newSite({ title: 'Rated', spaces: [guides] });
    const base = pathOf(site.urls.published);
    const feedback = `${base}~/feedback`;
    const post = (form: Record<string, string>) =>
      fetch(`${stack.baseUrl}${feedback}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'rating-browser' },
        body: new URLSearchParams(form).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
    // Off by default: no form, and nothing takes a rating.
    assert.ok(!(await visit(`${base}install`)).text.includes('page-feedback'));
    assert.equal((await post({ page: pageIds.install, space: 'any', rating: 'good' })).status, 404);
    assert.equal((await org.admin.api.put(`${sites()}/${site.id}/customization`, { feedback: { enabled: true } })).status, 200);
    const page = await visit(`${base}install`);
    const form =
      /<form class="page-feedback" method="post" action="([^"]+)"><input type="hidden" name="page" value="([^"]+)"><input type="hidden" name="space" value="([^"]+)">/.exec(
        page.text,
      );
    assert.ok(form, 'the form under the page');
    const [, action, pageId, space] = form;
    assert.deepEqual([action, pageId], [feedback, pageIds.install]);
    assert.ok(page.text.includes('<button type="submit" name="rating" value="good">Yes</button>'));

    const bus = createEventBus({ redisUrl: stack.env.redisUrl, prefix: stack.env.redisPrefix, logger: createLogger('test', 'silent') });
    const told: Array<EventOf<typeof EVENTS.pageFeedback>['payload']> = [];
    const subscription = await bus.subscribe(`test-page-feedback-${site.id}`, [EVENTS.pageFeedback], async (event) => {
      if (event.payload.siteId === site.id) told.push(event.payload);
    });
    try {
      const thanked = await post({ page: pageId, space, rating: 'good' });
      assert.equal(thanked.status, 200);
      const thanks = await thanked.text();
      assert.match(thanks, /<h1>Thank you for your feedback<\/h1><p><a href="[^"]*\/install">Back to “Install”<\/a><\/p>/);
      assert.equal(thanked.headers.get('cache-control'), 'no-store');
      // Refused: a rating that is none, a page the site does not show, a GET.
      assert.equal((await post({ page: pageId, space, rating: 'great' })).status, 400);
      assert.equal((await post({ page: 'no-such-page', space, rating: 'bad' })).status, 404);
      assert.equal((await post({ page: pageId, space: 'no-such-site-space', rating: 'bad' })).status, 404);
      assert.equal((await visit(feedback)).status, 404);
      const deadline = Date.now() + 10_000;
      while (told.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(told.length, 1, 'the rating, once; none for the refused ones');
      const [rating] = told;
      assert.deepEqual(
        [rating.organizationId, rating.siteSpaceId, rating.spaceId, rating.pageId, rating.rating],
        [org.id, space, guides, pageIds.install, 'good'],
      );
      assert.match(rating.url, /\/install$/);
      assert.deepEqual([rating.visitor.userAgent, rating.visitor.cookies], ['rating-browser', {}]);
    } finally {
      await subscription.stop();
      await bus.close();
    }
  });

  it('tells integrations of every page view, gathered a few per site.views event', async () => {
    const site = await newSite({ title: 'Counted', spaces: [guides] });
    const base = pathOf(site.urls.published);
    const bus = createEventBus({ redisUrl: stack.env.redisUrl, prefix: stack.env.redisPrefix, logger: createLogger('test', 'silent') });
    const told: Array<{ id: string; pageIds: string[]; readers: Array<{ userAgent: string; anonymousId: string; ip: string }> }> = [];
    const subscription = await bus.subscribe(`test-site-views-${site.id}`, [EVENTS.siteViewed], async (event) => {
      if (event.payload.siteId === site.id)
        told.push({ id: event.id, pageIds: event.payload.views.map((view) => view.pageId), readers: event.payload.views.map((view) => view.visitor) });
    });
    try {
      await settled();
      const first = await visit(base);
      // A returning reader: their first revisit is publishing's 304, the next ones the gateway's (site-revisits.ts), each a view all the same.
      const revisit = { 'if-none-match': first.headers.get('etag') as string, 'user-agent': 'returning-reader' };
      assert.equal((await visit(base, revisit)).status, 304);
      // Seven more at once: a 200, revisits answered 304, two other pages, and one that is not there (no view).
      const answers = await Promise.all([
        visit(`${base}install`),
        visit(base, revisit),
        visit(`${base}install/linux`),
        visit(`${base}configure`),
        visit(`${base}nowhere`),
        visit(base, revisit),
        visit(base, revisit),
      ]);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 304, 200, 200, 404, 304, 304],
      );
      const deadline = Date.now() + 10_000;
      while (told.flatMap((event) => event.pageIds).length < 8 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(
        told.flatMap((event) => event.pageIds).sort(),
        [pageIds.intro, pageIds.intro, pageIds.intro, pageIds.intro, pageIds.intro, pageIds.install, pageIds.linux, pageIds.configure].sort(),
        'each view told once',
      );
      assert.ok(told.length < 8, `views told together, not one event each (${told.length} events)`);
      // The returning reader is one visitor, whoever answered: the same address (the visitor's, not the gateway's) and anonymous id.
      const returning = told.flatMap((event) => event.readers).filter((reader) => reader.userAgent === 'returning-reader');
      assert.equal(returning.length, 4);
      assert.equal(new Set(returning.map((reader) => `${reader.anonymousId} ${reader.ip}`)).size, 1);
      assert.match(returning[0].ip, /127\.0\.0\.1$/);
    } finally {
      await subscription.stop();
      await bus.close();
    }
  });
});
