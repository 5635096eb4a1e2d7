import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import {
  assertMatchesOpenApi,
  sharedTestStack,
  type ApiClient,
  type TestAccount,
  type TestStack,
  expectError as assertError,
  expectEvery,
} from '@quire/testkit';

/** Collections, their permissions and what they give on the spaces inside, through the gateway. */
describe('content: collections (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let creator: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount & { organizationId: string };

  const account = (args: string[]) => stack.account(args);
  const create = async (api: ApiClient, body: Record<string, unknown>) => {
    const created = await api.post(`/v1/orgs/${orgId}/collections`, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  const createSpace = async (api: ApiClient, body: Record<string, unknown>) => {
    const created = await api.post(`/v1/orgs/${orgId}/spaces`, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  const ids = (body: { items: Array<{ id: string }> }) => body.items.map((i) => i.id);

  beforeAll(async () => {
    stack = await sharedTestStack();
    admin = await account(['bootstrap', '--email', 'ada@acme.test', '--org', 'Acme']);
    orgId = (admin as unknown as { organizationId: string }).organizationId;
    creator = await account(['add-member', '--org', orgId, '--email', 'cora@acme.test', '--role', 'create']);
    reader = await account(['add-member', '--org', orgId, '--email', 'rita@acme.test', '--role', 'read']);
    guest = await account(['add-member', '--org', orgId, '--email', 'gus@elsewhere.test', '--role', 'guest']);
    outsider = await account(['bootstrap', '--email', 'eve@other.test', '--org', 'Other']);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates collections (201 Collection), nested ones too; bad input 400, no create role 403', async () => {
    const created = await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Products' });
    assert.equal(created.status, 201);
    const products = created.body;
    assertMatchesOpenApi('Collection', products);
    assert.equal(created.headers.get('location'), products.urls.location);
    assert.equal(products.urls.location, `${stack.baseUrl}/v1/collections/${products.id}`);
    assert.equal(products.object, 'collection');
    assert.equal(products.title, 'Products');
    assert.equal(products.organization, orgId);
    assert.equal(products.parent, undefined);
    assert.equal(products.defaultLevel, 'admin');
    assert.equal(products.defaultLevelInherited, true);
    assert.deepEqual(products.permissions, { view: true, admin: true, viewInviteLinks: true, create: true });

    const child = await create(creator.api, { title: 'Widgets', parent: products.id });
    assert.equal(child.parent, products.id);
    assert.deepEqual(child.permissions, { view: true, admin: false, viewInviteLinks: false, create: true });

    assertError(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'x'.repeat(51) }), 400, 'title');
    assertError(await admin.api.post(`/v1/orgs/${orgId}/collections`, { description: 'x'.repeat(101) }), 400, 'description');
    assertError(await admin.api.post(`/v1/orgs/${orgId}/collections`, { parent: 'no-such-collection' }), 404);
    assertError(await reader.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Nope' }), 403);
    assertError(await reader.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Nope', parent: products.id }), 403);
    assertError(await outsider.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Nope' }), 404);
    const theirs = (await outsider.api.post(`/v1/orgs/${outsider.organizationId}/collections`, { title: 'Theirs' })).body;
    assertError(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Under theirs', parent: theirs.id }), 404);
  });

  it('gets, updates and lists collections (nested or top-level only) in keyset pages', async () => {
    const top = await create(admin.api, { title: 'Top' });
    const nested = await create(admin.api, { title: 'Nested', parent: top.id });
    const got = await reader.api.get(`/v1/collections/${top.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.permissions, { view: true, admin: false, viewInviteLinks: false, create: false });

    const patched = await admin.api.patch(`/v1/collections/${top.id}`, { title: 'Top v2', description: 'All the top things', defaultLevel: 'comment' });
    assert.equal(patched.status, 200);
    assertMatchesOpenApi('Collection', patched.body);
    assert.equal(patched.body.title, 'Top v2');
    assert.equal(patched.body.description, 'All the top things');
    assert.equal(patched.body.defaultLevel, 'comment');
    assertError(await admin.api.patch(`/v1/collections/${top.id}`, { title: 'x'.repeat(51) }), 400, 'title');
    assertError(await admin.api.patch(`/v1/collections/${top.id}`, { defaultLevel: 'owner' }), 400, 'defaultLevel');
    assertError(await creator.api.patch(`/v1/collections/${top.id}`, { title: 'Mine' }), 403);
    assertError(await outsider.api.get(`/v1/collections/${top.id}`), 404);
    assertError(await outsider.api.patch(`/v1/collections/${top.id}`, { title: 'Mine' }), 404);
    assertError(await admin.api.get('/v1/collections/does-not-exist'), 404);

    const all = await admin.api.get(`/v1/orgs/${orgId}/collections?limit=1000`);
    assert.equal(all.status, 200);
    all.body.items.forEach((c: unknown) => assertMatchesOpenApi('Collection', c));
    assert.ok(ids(all.body).includes(nested.id), 'nested by default');
    const topOnly = await admin.api.get(`/v1/orgs/${orgId}/collections?nested=false&limit=1000`);
    assert.ok(ids(topOnly.body).includes(top.id));
    assert.ok(!ids(topOnly.body).includes(nested.id));
    expectEvery(topOnly.body.items, (c: { parent?: string }) => c.parent === undefined);
    assertError(await admin.api.get(`/v1/orgs/${orgId}/collections?nested=maybe`), 400, 'nested');
    assertError(await outsider.api.get(`/v1/orgs/${orgId}/collections`), 404);

    const paged: string[] = [];
    let page: string | undefined;
    do {
      const res = await admin.api.get(`/v1/orgs/${orgId}/collections?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      assert.equal(res.body.count, all.body.count);
      paged.push(...ids(res.body));
      page = res.body.next?.page;
    } while (page);
    assert.deepEqual(paged, ids(all.body));
  });

  it('gives collection levels and grants to the spaces inside; in-collection opens a space to the collection', async () => {
    const vault = await create(admin.api, { title: 'Vault' });
    await admin.api.patch(`/v1/collections/${vault.id}`, { defaultLevel: null });
    const secret = await createSpace(admin.api, { title: 'Secret', parent: vault.id });
    assertError(await reader.api.get(`/v1/collections/${vault.id}`), 404);
    assertError(await reader.api.get(`/v1/spaces/${secret.id}`), 404);
    assert.ok(!ids((await reader.api.get(`/v1/orgs/${orgId}/collections?limit=1000`)).body).includes(vault.id));

    // A grant on the collection reaches every space inside, and lets the guest create there.
    const perms = `/v1/collections/${vault.id}/permissions`;
    assert.equal((await admin.api.post(perms, { role: 'create', users: [guest.userId] })).status, 204);
    assert.equal((await guest.api.get(`/v1/collections/${vault.id}`)).body.permissions.create, true);
    assert.equal((await guest.api.get(`/v1/spaces/${secret.id}`)).status, 200);
    const guestSpace = await createSpace(guest.api, { title: 'Guest work', parent: vault.id });
    const listed = await guest.api.get(`/v1/collections/${vault.id}/spaces`);
    assert.equal(listed.status, 200);
    assert.deepEqual(ids(listed.body), [secret.id, guestSpace.id]);
    listed.body.items.forEach((s: unknown) => assertMatchesOpenApi('Space', s));
    const users = await admin.api.get(`${perms}/users`);
    assert.equal(users.body.count, 1);
    assertMatchesOpenApi('UserContentPermission', users.body.items[0]);
    assertError(await reader.api.get(`/v1/collections/${vault.id}/spaces`), 404);
    assertError(await creator.api.post(perms, { role: 'read', users: [reader.userId] }), 404);
    assert.equal((await admin.api.delete(`${perms}/users/${guest.userId}`)).status, 204);
    assertError(await guest.api.get(`/v1/spaces/${secret.id}`), 404);

    // in-collection: whoever can access the collection can access the space.
    const shelf = await create(admin.api, { title: 'Shelf' });
    await admin.api.patch(`/v1/collections/${shelf.id}`, { defaultLevel: 'read' });
    const shared = await createSpace(admin.api, { title: 'Shared', parent: shelf.id, visibility: 'in-collection' });
    const closed = await createSpace(admin.api, { title: 'Closed', parent: shelf.id });
    await admin.api.patch(`/v1/spaces/${shared.id}`, { defaultLevel: null });
    await admin.api.patch(`/v1/spaces/${closed.id}`, { defaultLevel: null });
    assert.equal((await reader.api.get(`/v1/spaces/${shared.id}`)).status, 200);
    assertError(await reader.api.get(`/v1/spaces/${closed.id}`), 404);
    assert.deepEqual(ids((await reader.api.get(`/v1/collections/${shelf.id}/spaces`)).body), [shared.id]);
  });

  it('shows the default level in force on collections (from the parent chain, admin at the root) and whether it is inherited', async () => {
    const level = (body: { defaultLevel: unknown; defaultLevelInherited: unknown }) => [body.defaultLevel, body.defaultLevelInherited];
    const parent = await create(admin.api, { title: 'Edit parent' });
    const set = await admin.api.patch(`/v1/collections/${parent.id}`, { defaultLevel: 'edit' });
    assertMatchesOpenApi('Collection', set.body);
    assert.deepEqual(level(set.body), ['edit', false]);
    const child = await create(admin.api, { title: 'Edit child', parent: parent.id });
    assertMatchesOpenApi('Collection', child);
    assert.deepEqual(level(child), ['edit', true]);
    assert.deepEqual(level((await reader.api.get(`/v1/collections/${child.id}`)).body), ['edit', true]);
    const listed = (await admin.api.get(`/v1/orgs/${orgId}/collections?limit=1000`)).body.items;
    assert.deepEqual(level(listed.find((c: { id: string }) => c.id === child.id)), ['edit', true]);
    const space = await createSpace(admin.api, { title: 'Under the child', parent: child.id });
    assert.deepEqual(level(space), ['edit', true], 'a space follows the whole chain');

    const own = await admin.api.patch(`/v1/collections/${child.id}`, { defaultLevel: 'review' });
    assert.deepEqual(level(own.body), ['review', false]);
    const inherits = await admin.api.patch(`/v1/collections/${child.id}`, { defaultLevel: 'inherit' });
    assert.equal(inherits.status, 200, JSON.stringify(inherits.body));
    assert.deepEqual(level(inherits.body), ['edit', true]);
    const none = await admin.api.patch(`/v1/collections/${child.id}`, { defaultLevel: null });
    assertMatchesOpenApi('Collection', none.body);
    assert.deepEqual(level(none.body), [null, false]);
    assert.deepEqual(level((await admin.api.get(`/v1/spaces/${space.id}`)).body), [null, true]);

    await admin.api.patch(`/v1/collections/${child.id}`, { defaultLevel: 'inherit' });
    const atRoot = await admin.api.post(`/v1/collections/${child.id}/move`, { parent: null });
    assert.equal(atRoot.status, 200, JSON.stringify(atRoot.body));
    assert.deepEqual(level(atRoot.body), ['admin', true], 'out of the parent: the organization decides');
    assert.deepEqual(level((await admin.api.post(`/v1/collections/${child.id}/move`, { parent: parent.id })).body), ['edit', true]);
    const target = await admin.api.post('/v1/orgs', { title: 'Acme Levels' });
    assert.equal(target.status, 201);
    const transferred = await admin.api.post(`/v1/collections/${child.id}/transfer`, { organization: target.body.id });
    assert.equal(transferred.status, 200, JSON.stringify(transferred.body));
    assert.deepEqual(level(transferred.body), ['admin', true], "at the target's root");
  });

  it('moves collections, refusing every move the spec lists as a failure', async () => {
    const a = await create(admin.api, { title: 'A' });
    const b = await create(admin.api, { title: 'B' });
    const aChild = await create(admin.api, { title: 'A child', parent: a.id });
    const space = await createSpace(admin.api, { title: 'Loose' });

    const moved = await admin.api.post(`/v1/collections/${b.id}/move`, { parent: a.id });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assertMatchesOpenApi('Collection', moved.body);
    assert.equal(moved.body.parent, a.id);
    const before = await admin.api.post(`/v1/collections/${b.id}/move`, { position: { before: { type: 'collection', collection: aChild.id } } });
    assert.equal(before.status, 200);

    assertError(await admin.api.post(`/v1/collections/${b.id}/move`, {}), 400, 'body');
    assertError(await admin.api.post(`/v1/collections/${b.id}/move`, { position: { before: { type: 'space', space: 'nope' } } }), 400, 'position');
    assertError(
      await admin.api.post(`/v1/collections/${b.id}/move`, { position: { after: { type: 'space', space: space.id } }, parent: a.id }),
      400,
      'position',
    );
    assertError(await admin.api.post(`/v1/collections/${b.id}/move`, { position: { before: { type: 'collection', collection: b.id } } }), 400, 'position');
    assertError(await admin.api.post(`/v1/collections/${b.id}/move`, { parent: 'no-such-collection' }), 404);
    assertError(await admin.api.post('/v1/collections/no-such-collection/move', { parent: null }), 404);
    assertError(await admin.api.post(`/v1/collections/${b.id}/move`, { parent: a.id }), 409);
    assertError(await admin.api.post(`/v1/collections/${a.id}/move`, { parent: a.id }), 400, 'parent');
    assertError(await admin.api.post(`/v1/collections/${a.id}/move`, { parent: b.id }), 400, 'parent');
    assertError(await creator.api.post(`/v1/collections/${b.id}/move`, { parent: null }), 403);
    assertError(await outsider.api.post(`/v1/collections/${b.id}/move`, { parent: null }), 404);

    const root = await admin.api.post(`/v1/collections/${b.id}/move`, { parent: null });
    assert.equal(root.status, 200);
    assert.equal(root.body.parent, undefined);
  });

  it('deletes empty collections only (409 otherwise); missing ones answer 204', async () => {
    const box = await create(admin.api, { title: 'Box' });
    const inside = await createSpace(admin.api, { title: 'Inside', parent: box.id });
    assertError(await creator.api.delete(`/v1/collections/${box.id}`), 403);
    assertError(await admin.api.delete(`/v1/collections/${box.id}`), 409);
    assert.equal((await admin.api.delete(`/v1/spaces/${inside.id}`)).status, 204);
    assert.equal((await admin.api.delete(`/v1/collections/${box.id}`)).status, 204);
    assertError(await admin.api.get(`/v1/collections/${box.id}`), 404);
    assert.equal((await admin.api.delete(`/v1/collections/${box.id}`)).status, 204);
    assert.equal((await admin.api.delete('/v1/collections/never-existed')).status, 204);
    // The trashed space comes back at the root, its collection being gone.
    const restored = await admin.api.post(`/v1/spaces/${inside.id}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.parent, undefined);
  });

  it('transfers a collection with everything under it to another organization the caller administers', async () => {
    const pack = await create(admin.api, { title: 'Pack' });
    const sub = await create(admin.api, { title: 'Sub', parent: pack.id });
    const deep = await createSpace(admin.api, { title: 'Deep', parent: sub.id });
    const target = (await admin.api.post('/v1/orgs', { title: 'Acme Labs' })).body;

    assertError(await admin.api.post(`/v1/collections/${pack.id}/transfer`, {}), 400, 'organization');
    assertError(await admin.api.post(`/v1/collections/${pack.id}/transfer`, { organization: orgId }), 409);
    assertError(await admin.api.post('/v1/collections/no-such-collection/transfer', { organization: target.id }), 404);
    assertError(await admin.api.post(`/v1/collections/${pack.id}/transfer`, { organization: outsider.organizationId }), 404);
    await account(['add-member', '--org', outsider.organizationId, '--email', 'ada@acme.test', '--role', 'read']);
    assertError(await admin.api.post(`/v1/collections/${pack.id}/transfer`, { organization: outsider.organizationId }), 403);
    assertError(await creator.api.post(`/v1/collections/${pack.id}/transfer`, { organization: target.id }), 403);

    const moved = await admin.api.post(`/v1/collections/${pack.id}/transfer`, { organization: target.id });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assertMatchesOpenApi('Collection', moved.body);
    assert.equal(moved.body.organization, target.id);
    assert.equal((await admin.api.get(`/v1/collections/${sub.id}`)).body.organization, target.id);
    assert.equal((await admin.api.get(`/v1/spaces/${deep.id}`)).body.organization, target.id);
    assertError(await reader.api.get(`/v1/collections/${pack.id}`), 404);
    assertError(await reader.api.get(`/v1/spaces/${deep.id}`), 404);
    assert.ok(ids((await admin.api.get(`/v1/orgs/${target.id}/collections`)).body).includes(sub.id));
  });
});
