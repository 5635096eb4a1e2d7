import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectError, expectOk, startTestStack, type TestOrganization, type TestStack } from '@quire/testkit';

/** Nested `depth` levels: { nodes: [ { nodes: [ … ] } ] }-like, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = { object: 'text', leaves: [{ text: 'deep' }] };
  for (let i = 0; i < depth; i++) value = { object: 'block', type: 'paragraph', nodes: [value] };
  return value;
}

/**
 * Hostile input through the gateway: forged list cursors and deeply nested bodies get a 400
 * naming what is wrong, never a 500 (issue: "bad input that still reaches a 500").
 */
describe('hostile input through the gateway', () => {
  let stack: TestStack;
  let org: TestOrganization<'read'>;
  let spaceId: string;
  let siteId: string;

  beforeAll(async () => {
    stack = await startTestStack();
    org = await stack.organization({ domain: 'hostile.test', roles: ['read'] });
    spaceId = expectOk(await org.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Target' }), 201).id;
    siteId = expectOk(await org.admin.api.post(`/v1/orgs/${org.id}/sites`, { title: 'Docs site', spaces: [spaceId] }), 201).id;
    // Enough rows that every list below has a next page.
    await org.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Second' });
    expectOk(await org.admin.api.post(`/v1/spaces/${spaceId}/comments`, { body: { markdown: 'one' } }));
    expectOk(await org.admin.api.post(`/v1/spaces/${spaceId}/comments`, { body: { markdown: 'two' } }));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const lists = () => [
    `/v1/orgs`,
    `/v1/orgs/${org.id}/members`,
    `/v1/orgs/${org.id}/teams`,
    `/v1/orgs/${org.id}/spaces`,
    `/v1/orgs/${org.id}/collections`,
    `/v1/orgs/${org.id}/change-requests`,
    `/v1/orgs/${org.id}/sites`,
    `/v1/orgs/${org.id}/saml`,
    `/v1/spaces/${spaceId}/change-requests`,
    `/v1/spaces/${spaceId}/comments`,
    `/v1/spaces/${spaceId}/commenters`,
    `/v1/spaces/${spaceId}/permissions/users`,
    `/v1/orgs/${org.id}/sites/${siteId}/site-spaces`,
    `/v1/orgs/${org.id}/sites/${siteId}/sections`,
    `/v1/orgs/${org.id}/sites/${siteId}/share-links`,
    `/v1/orgs/${org.id}/members/${org.admin.userId}/spaces`,
  ];

  it('answers 400 to forged, edited and foreign cursors on every keyset list', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forged = [
      b64(['joinedAt', { v: { $gt: '' } }, 'x']),
      b64(['createdAt', { d: { $ne: null } }, { $gt: '' }]),
      b64(['position', { v: [1, 2] }, 'x']),
      `${b64(['_id', { v: '' }, 'x'])}.AAAAAAAAAAAAAAAAAAAAAA`,
      'not-a-cursor',
    ];
    for (const list of lists()) {
      const first = await org.admin.api.get(`${list}?limit=1`);
      assert.equal(first.status, 200, `${list}: ${JSON.stringify(first.body)}`);
      for (const page of forged) expectError(await org.admin.api.get(`${list}?limit=1&page=${encodeURIComponent(page)}`), 400, 'page');
      const genuine = first.body.next?.page as string | undefined;
      if (!genuine) continue;
      // A real cursor works; the same cursor edited by one character does not.
      expectOk(await org.admin.api.get(`${list}?limit=1&page=${encodeURIComponent(genuine)}`));
      const edited = genuine.slice(0, 5) + (genuine[5] === 'A' ? 'B' : 'A') + genuine.slice(6);
      expectError(await org.admin.api.get(`${list}?limit=1&page=${encodeURIComponent(edited)}`), 400, 'page');
    }
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

  it('refuses deeply nested site conditions with a 400 naming the field', async () => {
    const siteSpaces = expectOk(await org.admin.api.get(`/v1/orgs/${org.id}/sites/${siteId}/site-spaces`));
    const siteSpaceId = siteSpaces.items[0].id;
    const condition = '('.repeat(500) + 'visitor.claims.a' + ')'.repeat(500);
    expectError(await org.admin.api.patch(`/v1/orgs/${org.id}/sites/${siteId}/site-spaces/${siteSpaceId}`, { condition }), 400, 'condition');
    const unary = '!'.repeat(1000) + 'visitor.claims.a';
    expectError(await org.admin.api.patch(`/v1/orgs/${org.id}/sites/${siteId}/site-spaces/${siteSpaceId}`, { condition: unary }), 400, 'condition');
  });
});
