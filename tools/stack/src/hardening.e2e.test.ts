import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient, expectError, expectOk, sharedTestStack, type TestOrganization, type TestStack } from '@quire/testkit';

/** Nested `depth` levels: { nodes: [ { nodes: [ … ] } ] }-like, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = { object: 'text', leaves: [{ text: 'deep' }] };
  for (let i = 0; i < depth; i++) value = { object: 'block', type: 'paragraph', nodes: [value] };
  return value;
}

/** A 400 naming `field` for a NUL character in it. */
function expectNul(answer: { status: number; body: any }, field: string): void {
  expectError(answer, 400, field);
  assert.match(answer.body.error.message, /must not contain NUL characters/);
}

type Org = TestOrganization<'read' | 'edit'>;

/**
 * Two or more of everything the keyset lists below list (stored and computed lists of identity,
 * content, publishing and insights), in `org`; returns the addresses of those lists (by name, the
 * same names in every organization) and the space and site they are in.
 */
async function populate(org: Org): Promise<{ lists: Record<string, string>; spaceId: string; siteId: string }> {
  const { admin } = org;
  const [reader, editor] = [org.members.read, org.members.edit];
  const made = async (path: string, body: unknown) => expectOk(await admin.api.post(path, body), 201).id as string;
  const orgPath = `/v1/orgs/${org.id}`;
  await made('/v1/orgs', { title: `${org.id} second` });
  const team = async (title: string, members: string[]) => expectOk(await admin.api.put(`${orgPath}/teams`, { title, members }), 201).id as string;
  const writers = await team('Writers', [reader.userId, editor.userId]);
  await team('Readers', [reader.userId]);
  const shelf = await made(`${orgPath}/collections`, { title: 'Shelf' });
  await made(`${orgPath}/collections`, { title: 'Other shelf' });
  const spaceId = await made(`${orgPath}/spaces`, { title: 'Target' });
  const spaces = [spaceId, await made(`${orgPath}/spaces`, { title: 'Second' })];
  for (const title of ['Third', 'Fourth']) spaces.push(await made(`${orgPath}/spaces`, { title, parent: shelf }));
  for (const subject of ['One', 'Two']) await made(`/v1/spaces/${spaceId}/change-requests`, { subject });
  const siteId = await made(`${orgPath}/sites`, { title: 'Docs site', spaces: spaces.slice(0, 2) });
  const sharedId = await made(`${orgPath}/sites`, { title: 'Shared site', spaces: [spaceId], visibility: 'share-link' });
  for (const spaceOfSection of spaces.slice(2)) await made(`${orgPath}/sites/${sharedId}/sections`, { spaceId: spaceOfSection });
  for (const name of ['First link', 'Second link']) await made(`${orgPath}/sites/${sharedId}/share-links`, { name });
  for (const label of ['First IdP', 'Second IdP']) await made(`${orgPath}/saml`, { label, ssoURL: 'https://idp.example.test/sso' });
  expectOk(await admin.api.post(`/v1/spaces/${spaceId}/permissions`, { role: 'comment', users: [reader.userId, editor.userId] }), 204);
  expectOk(await admin.api.post(`/v1/spaces/${spaceId}/comments`, { body: { markdown: 'one' } }));
  expectOk(await reader.api.post(`/v1/spaces/${spaceId}/comments`, { body: { markdown: 'two' } }));
  const conversation = (id: string) => ({ id, parts: [{ type: 'message', role: 'user', body: 'How do I install it?' }] });
  expectOk(await admin.api.post(`${orgPath}/conversations`, [conversation('first'), conversation('second')]), 204);
  const lists = {
    organizations: `/v1/orgs`,
    members: `${orgPath}/members`,
    teams: `${orgPath}/teams`,
    spaces: `${orgPath}/spaces`,
    collections: `${orgPath}/collections`,
    changeRequests: `${orgPath}/change-requests`,
    sites: `${orgPath}/sites`,
    saml: `${orgPath}/saml`,
    spaceChangeRequests: `/v1/spaces/${spaceId}/change-requests`,
    comments: `/v1/spaces/${spaceId}/comments`,
    commenters: `/v1/spaces/${spaceId}/commenters`,
    permissions: `/v1/spaces/${spaceId}/permissions/users`,
    siteSpaces: `${orgPath}/sites/${siteId}/site-spaces`,
    sections: `${orgPath}/sites/${sharedId}/sections`,
    shareLinks: `${orgPath}/sites/${sharedId}/share-links`,
    memberSpaces: `${orgPath}/members/${admin.userId}/spaces`,
    memberTeams: `${orgPath}/members/${reader.userId}/teams`,
    teamMembers: `${orgPath}/teams/${writers}/members`,
    collectionSpaces: `/v1/collections/${shelf}/spaces`,
    conversations: `${orgPath}/conversations`,
  };
  return { lists, spaceId, siteId };
}

/**
 * Hostile input through the gateway: forged, edited and foreign list cursors, deeply nested
 * bodies and NUL characters get a 400 naming what is wrong, over-long URLs a 414 or 431, never
 * a 500, a 503 or a reset connection (issue: "bad input that still reaches a 500").
 */
describe('hostile input through the gateway', () => {
  let stack: TestStack;
  let org: Org;
  /** Another organization with the same lists: its cursors are foreign to `org`'s. */
  let foreign: Org;
  let lists: Record<string, string>;
  let foreignLists: Record<string, string>;
  let spaceId: string;
  let siteId: string;

  beforeAll(async () => {
    stack = await sharedTestStack();
    org = await stack.organization({ domain: 'hostile.test', roles: ['read', 'edit'] });
    foreign = await stack.organization({ domain: 'foreign.hostile.test', roles: ['read', 'edit'] });
    ({ lists, spaceId, siteId } = await populate(org));
    ({ lists: foreignLists } = await populate(foreign));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 400 naming the page to forged, edited and foreign cursors on keyset lists of every kind, never a page', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forged = [
      b64(['joinedAt', { v: { $gt: '' } }, 'x']),
      b64(['createdAt', { d: { $ne: null } }, { $gt: '' }]),
      b64(['position', { v: [1, 2] }, 'x']),
      `${b64(['_id', { v: '' }, 'x'])}.AAAAAAAAAAAAAAAAAAAAAA`,
      'not-a-cursor',
    ];
    // Every list, in both organizations, has a next page at one item a page: its cursor opens it.
    const cursorOf = async (owner: Org, list: string) => {
      const page = expectOk(await owner.admin.api.get(`${list}?limit=1`)).next?.page as string | undefined;
      assert.ok(page, `${list}: no next page at one item a page`);
      expectOk(await owner.admin.api.get(`${list}?limit=1&page=${encodeURIComponent(page)}`));
      return page;
    };
    const cursors: Record<string, string> = {};
    const foreignCursors: Record<string, string> = {};
    for (const name of Object.keys(lists)) {
      cursors[name] = await cursorOf(org, lists[name]);
      foreignCursors[name] = await cursorOf(foreign, foreignLists[name]);
    }
    // Each list is sent: forged cursors, its own edited by one character, another list's (one sorted by the
    // same key when there is one: its signature is as genuine as the list's own), and its own of another organization.
    const sortKeyOf = (page: string) => JSON.parse(Buffer.from(page.split('.')[0], 'base64url').toString())[0] as string;
    const refusals: Array<{ list: string; of: string; page: string }> = [];
    for (const [name, list] of Object.entries(lists)) {
      const genuine = cursors[name];
      const edited = genuine.slice(0, 5) + (genuine[5] === 'A' ? 'B' : 'A') + genuine.slice(6);
      const others = Object.entries(cursors).filter(([other]) => other !== name);
      const [other, ofOther] = others.find(([, cursor]) => sortKeyOf(cursor) === sortKeyOf(genuine)) ?? others[0];
      refusals.push(...forged.map((page) => ({ list, of: 'forged', page })), { list, of: 'edited', page: edited }, { list, of: other, page: ofOther });
      refusals.push({ list, of: `the other organization's ${name}`, page: foreignCursors[name] });
    }
    const accepted: string[] = [];
    // A few at a time: a few seconds for all of them.
    for (let at = 0; at < refusals.length; at += 8) {
      await Promise.all(
        refusals.slice(at, at + 8).map(async ({ list, of, page }) => {
          const answer = await org.admin.api.get(`${list}?limit=1&page=${encodeURIComponent(page)}`);
          const message = String(answer.body?.error?.message ?? '');
          if (answer.status !== 400 || !message.includes('page'))
            accepted.push(`${list} with a cursor of ${of}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        }),
      );
    }
    assert.deepEqual(accepted, []);
  });

  it('refuses bodies nested hundreds of levels with a 400 naming the field', async () => {
    const description = nested(600);
    expectError(await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Deep', description }), 400, 'description');
    let schema: unknown = { type: 'boolean' };
    for (let i = 0; i < 1000; i++) schema = { type: 'object', properties: { x: schema } };
    expectError(await org.admin.api.put(`/v1/orgs/${org.id}/sites/${siteId}/adaptive-schema`, { jsonSchema: schema }), 400, 'jsonSchema');
    expectError(await org.admin.api.patch(`/v1/orgs/${org.id}`, { mergeRules: nested(200) }), 400, 'mergeRules');
    // The same fields at an ordinary depth are fine.
    expectOk(await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Shallow', description: nested(5) }), 201);
  });

  it('refuses a NUL character in a body, a path id or a query value with a 400 naming the field, anonymous callers included', async () => {
    const { admin } = org;
    const reader = org.members.read;
    // JSON bodies: a value, a nested value, a key.
    expectNul(await admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'a\u0000b' }), 'title');
    expectNul(await admin.api.patch(`/v1/spaces/${spaceId}`, { title: 'ok', visibility: '\u0000' }), 'visibility');
    expectNul(await reader.api.post(`/v1/spaces/${spaceId}/comments`, { body: { markdown: 'x\u0000' } }), 'body.markdown');
    expectNul(await admin.api.patch(`/v1/orgs/${org.id}`, { mergeRules: { 'k\u0000': 1 } }), 'mergeRules');
    // Path ids and query values, as sent (%00) and as they decode.
    expectNul(await reader.api.get(`/v1/spaces/${spaceId}%00`), 'spaceId');
    expectNul(await reader.api.get(`/v1/orgs/${org.id}%00/spaces`), 'organizationId');
    expectNul(await reader.api.get(`/v1/orgs/${org.id}/spaces?limit=1&page=%00`), 'page');
    expectNul(await reader.api.get(`/v1/orgs/${org.id}/spaces?unknown=a%00b`), 'unknown');
    expectNul(await reader.api.get(`/v1/orgs/${org.id}/spaces?a[b]=%00`), 'a.b');
    // No token: public routes and published sites.
    const anonymous = apiClient(stack.baseUrl);
    expectNul(await anonymous.get(`/v1/public/saml/p%00/start`), 'samlProviderId');
    expectNul(await anonymous.get(`/sites/o%00/s`), 'org');
    expectNul(await anonymous.get(`/sites/o/s/~/search?q=%00`), 'q');
    // A share-link site's key kept in a cookie (decoded by the cookie parser, not by the route): an unknown key.
    const shared = expectOk(await admin.api.post(`/v1/orgs/${org.id}/sites`, { title: 'Shared', spaces: [spaceId], visibility: 'share-link' }), 201);
    const published = expectOk(await admin.api.post(`/v1/orgs/${org.id}/sites/${shared.id}/publish`));
    const page = await fetch(published.urls.published, { headers: { cookie: 'quire_share=%00; quire_visitor=%00' }, redirect: 'manual' });
    assert.equal(page.status, 404);
    expectNul(await anonymous.get(`${new URL(published.urls.published).pathname}?share=%00`), 'share');
    // Nothing of it was stored, and the same requests without the NUL work.
    expectOk(await admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'ab' }), 201);
    expectOk(await reader.api.get(`/v1/spaces/${spaceId}`));
  });

  it('refuses a NUL in every path parameter and in the body of every operation of the API document with a 400', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    // Someone with no access to anything: the check comes before any permission or lookup.
    const caller = org.outsider.api;
    const cases: Array<{ method: string; template: string; field: string; url: string; body?: unknown }> = [];
    for (const [template, operations] of Object.entries(document.paths)) {
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const method of Object.keys(operations)) {
        const withBody = method !== 'get' && method !== 'delete';
        for (const name of names) {
          const url = template.replace(/\{([^}]+)\}/g, (_, other: string) => (other === name ? 'x%00y' : 'x'));
          cases.push({ method, template, field: name, url, body: withBody ? {} : undefined });
        }
        if (withBody) cases.push({ method, template, field: 'zz', url: template.replace(/\{([^}]+)\}/g, 'x'), body: { zz: ['ok', 'a\u0000'] } });
      }
    }
    assert.ok(cases.length > 100, `only ${cases.length} cases: the document lists too few operations`);
    const failures: string[] = [];
    // A few at a time: a few seconds for all of them.
    for (let at = 0; at < cases.length; at += 8) {
      await Promise.all(
        cases.slice(at, at + 8).map(async ({ method, template, field, url, body }) => {
          const answer = await caller.request(method.toUpperCase(), url, { body });
          const message = String(answer.body?.error?.message ?? '');
          // Downloads answer only on the files host when there is one of its own (a 404 elsewhere, before any input is read).
          if (answer.status === 404 && template.startsWith('/v1/public/content/')) return;
          if (answer.status !== 400 || !message.includes(field) || !message.includes('NUL'))
            failures.push(`${method.toUpperCase()} ${url}: ${answer.status} ${message || JSON.stringify(answer.body).slice(0, 200)}`);
        }),
      );
    }
    assert.deepEqual(failures, []);
  });

  it('answers over-long URLs with 414 or 431 and the error body, and takes long ones that fit, through to the services', async () => {
    const query = (count: number, size = 9 * 1024) => Array.from({ length: count }, (_, i) => `p${i}=${'x'.repeat(size)}`).join('&');
    const list = `/v1/orgs/${org.id}/spaces`;
    for (const [count, status] of [
      [2, 414],
      [3, 414],
      [5, 431],
    ]) {
      for (const client of [org.members.read.api, apiClient(stack.baseUrl)]) {
        const answer = await client.get(`${list}?${query(count)}`);
        expectError(answer, status);
        assert.match(answer.body.error.message, /too (long|large)/);
      }
      // A site page too (no token, its own route at the gateway).
      expectError(await apiClient(stack.baseUrl).get(`/sites/o/s?${query(count)}`), status);
    }
    // 15 KB of query: under the gateway's limit, and the service behind it reads it with the headers the gateway adds.
    expectOk(await org.members.read.api.get(`${list}?limit=1&${query(1, 15 * 1024)}`));
  });

  it('serves the gateway metrics on their own listener only (the address in stack.json), never on the public one', async () => {
    const state = JSON.parse(readFileSync(path.join(stack.dataDir, 'stack.json'), 'utf8')) as { gatewayUrl: string; gatewayMetricsUrl: string };
    assert.notEqual(new URL(state.gatewayMetricsUrl).port, new URL(state.gatewayUrl).port);
    const metrics = await fetch(state.gatewayMetricsUrl);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /quire_http_requests_total\{service="content"/);
    for (const client of [apiClient(stack.baseUrl), org.admin.api]) expectError(await client.get('/metrics'), 404);
  });

  it('refuses deeply nested site conditions with a 400 naming the field', async () => {
    const siteSpaces = expectOk(await org.admin.api.get(`/v1/orgs/${org.id}/sites/${siteId}/site-spaces`));
    const siteSpaceId = siteSpaces.items[0].id;
    const condition = '('.repeat(500) + 'visitor.claims.a' + ')'.repeat(500);
    expectError(await org.admin.api.patch(`/v1/orgs/${org.id}/sites/${siteId}/site-spaces/${siteSpaceId}`, { condition }), 400, 'condition');
    const unary = '!'.repeat(1000) + 'visitor.claims.a';
    expectError(await org.admin.api.patch(`/v1/orgs/${org.id}/sites/${siteId}/site-spaces/${siteSpaceId}`, { condition: unary }), 400, 'condition');
  });
});
