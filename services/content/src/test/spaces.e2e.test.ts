import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createEventBus, EVENTS, type EventBus, type EventOf } from '@quire/async';
import { createLogger } from '@quire/runtime';
import {
  assertMatchesOpenApi,
  startTestStack,
  type ApiClient,
  type TestAccount,
  type TestStack,
  expectError as assertError,
  expectEvery,
} from '@quire/testkit';

// Long enough for "restore right after delete" on any machine, short enough to watch a real purge.
const RETENTION_MS = 10_000;

/** Spaces and their permissions through the gateway, on the whole stack. */
describe('content: spaces (end to end)', () => {
  let stack: TestStack;
  let events: EventBus;
  const SPACE_EVENTS = [EVENTS.spaceDeleted, EVENTS.spacePurged, EVENTS.spaceTransferred] as const;
  const seen: Array<EventOf<(typeof SPACE_EVENTS)[number]>> = [];
  let orgId: string;
  let admin: TestAccount;
  let creator: TestAccount;
  let editor: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount & { organizationId: string };

  const account = (args: string[]) => stack.account(args);
  const createSpace = async (api: ApiClient, body: Record<string, unknown> = {}, org = orgId) => {
    const created = await api.post(`/v1/orgs/${org}/spaces`, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  const eventFor = async (type: string, spaceId: string, attempts = 100) => {
    for (let i = 0; i < attempts; i++) {
      const found = seen.find((e) => e.type === type && e.payload.spaceId === spaceId);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.fail(`no ${type} event for ${spaceId}`);
  };
  // Events are consumed asynchronously: wait (bounded) for their effect.
  const until = async (done: () => Promise<boolean>, message: string) => {
    for (let i = 0; i < 100; i++) {
      if (await done()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.fail(message);
  };

  beforeAll(async () => {
    stack = await startTestStack({ SPACE_RETENTION_MS: String(RETENTION_MS) });
    admin = await account(['bootstrap', '--email', 'ada@acme.test', '--org', 'Acme']);
    orgId = (admin as unknown as { organizationId: string }).organizationId;
    creator = await account(['add-member', '--org', orgId, '--email', 'cora@acme.test', '--role', 'create']);
    editor = await account(['add-member', '--org', orgId, '--email', 'ed@acme.test', '--role', 'edit']);
    reader = await account(['add-member', '--org', orgId, '--email', 'rita@acme.test', '--role', 'read']);
    guest = await account(['add-member', '--org', orgId, '--email', 'gus@elsewhere.test', '--role', 'guest']);
    outsider = await account(['bootstrap', '--email', 'eve@other.test', '--org', 'Other']);
    events = createEventBus({ redisUrl: stack.env.redisUrl, prefix: stack.env.redisPrefix, logger: createLogger('test', 'silent') });
    await events.subscribe('content-spaces-e2e-test', SPACE_EVENTS, async (event) => void seen.push(event), { blockMs: 200 });
  });

  afterAll(async () => {
    await events?.close();
    await stack?.stop();
  });

  it('creates a space (201 Space, Location) with the caller-specific permissions', async () => {
    const created = await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Handbook', emoji: '📘', language: 'en' });
    assert.equal(created.status, 201);
    const space = created.body;
    assertMatchesOpenApi('Space', space);
    assert.equal(created.headers.get('location'), space.urls.location);
    assert.equal(space.urls.location, `${stack.baseUrl}/v1/spaces/${space.id}`);
    assert.ok(space.urls.app.startsWith(stack.baseUrl));
    assert.equal(space.object, 'space');
    assert.equal(space.title, 'Handbook');
    assert.equal(space.emoji, '📘');
    assert.equal(space.language, 'en');
    assert.equal(space.organization, orgId);
    assert.equal(space.visibility, 'private');
    assert.equal(space.editMode, 'live');
    // Inheriting at the root: each member keeps their org role, the level 'admin'.
    assert.equal(space.defaultLevel, 'admin');
    assert.equal(space.defaultLevelInherited, true);
    assert.deepEqual(space.mergeRules, { type: 'inherit' });
    assert.equal(typeof space.revision, 'string');
    assert.ok(space.revision.length > 0);
    assert.deepEqual([space.comments, space.changeRequests, space.changeRequestsOpen, space.changeRequestsDraft], [0, 0, 0, 0]);
    expectEvery(Object.values(space.permissions), (v) => v === true, 'the org admin may do everything');

    const asReader = await reader.api.get(`/v1/spaces/${space.id}`);
    assert.equal(asReader.status, 200);
    // A share key must open an active link of a site showing the space (resolved by publishing).
    const unknownKey = await reader.api.get(`/v1/spaces/${space.id}?shareKey=unknown`);
    assert.equal(unknownKey.status, 400);
    assert.match(unknownKey.body.error.message, /shareKey/);
    assert.equal(asReader.body.permissions.view, true);
    assert.equal(asReader.body.permissions.comment, false);
    assert.equal(asReader.body.permissions.edit, false);
    assert.equal(asReader.body.permissions.admin, false);
    const asEditor = await editor.api.get(`/v1/spaces/${space.id}`);
    assert.equal(asEditor.body.permissions.edit, true);
    assert.equal(asEditor.body.permissions.merge, false);
  });

  it('rejects bad space input naming the field, and callers without the create role', async () => {
    assertError(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title: 'x'.repeat(51) }), 400, 'title');
    assertError(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { emoji: 'x'.repeat(51) }), 400, 'emoji');
    assertError(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { visibility: 'everyone' }), 400, 'visibility');
    assertError(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { visibility: 'in-collection' }), 400, 'visibility');
    assertError(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { parent: 'no-such-collection' }), 404);
    assertError(await editor.api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Nope' }), 403);
    assertError(await guest.api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Nope' }), 403);
    assertError(await outsider.api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Nope' }), 404);
    const mine = await createSpace(creator.api, { title: 'By a creator' });
    assert.equal(mine.permissions.edit, true);
    assert.equal(mine.permissions.admin, false, 'creating does not make a create member admin');
  });

  it('hides spaces from other organizations and from guests without grants (404)', async () => {
    const space = await createSpace(admin.api, { title: 'Internal' });
    assertError(await outsider.api.get(`/v1/spaces/${space.id}`), 404);
    assertError(await guest.api.get(`/v1/spaces/${space.id}`), 404);
    assertError(await admin.api.get('/v1/spaces/does-not-exist'), 404);
    assertError(await outsider.api.get(`/v1/orgs/${orgId}/spaces`), 404);
    const theirs = await createSpace(outsider.api, { title: 'Theirs' }, outsider.organizationId);
    assertError(await admin.api.get(`/v1/spaces/${theirs.id}`), 404);
    assertError(await admin.api.patch(`/v1/spaces/${theirs.id}`, { title: 'Mine now' }), 404);
    assert.equal((await admin.api.delete(`/v1/spaces/${theirs.id}`)).status, 204, 'an invisible space is deleted like a missing one');
    assert.equal((await outsider.api.get(`/v1/spaces/${theirs.id}`)).status, 200, '…and is left alone');
  });

  it('lists visible spaces newest first in keyset pages', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createSpace(admin.api, { title: `Paged ${i}` }));
    const all = await admin.api.get(`/v1/orgs/${orgId}/spaces?limit=1000`);
    assert.equal(all.status, 200);
    const ids: string[] = [];
    let page: string | undefined;
    do {
      const res = await admin.api.get(`/v1/orgs/${orgId}/spaces?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, all.body.count);
      assert.ok(res.body.items.length <= 2);
      res.body.items.forEach((s: unknown) => assertMatchesOpenApi('Space', s));
      ids.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
    } while (page);
    assert.deepEqual(
      ids,
      all.body.items.map((s: { id: string }) => s.id),
    );
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(ids.slice(0, 5), made.map((s) => s.id).reverse(), 'newest first');
    assertError(await admin.api.get(`/v1/orgs/${orgId}/spaces?limit=1001`), 400, 'limit');
    assertError(await admin.api.get(`/v1/orgs/${orgId}/spaces?page=garbage`), 400, 'page');

    const asGuest = await guest.api.get(`/v1/orgs/${orgId}/spaces`);
    assert.equal(asGuest.status, 200);
    assert.equal(asGuest.body.count, 0, 'guests see only what they were invited to');
  });

  it('updates settings as a space admin; others get 403, bad input 400', async () => {
    const space = await createSpace(admin.api, { title: 'Settings' });
    const patched = await admin.api.patch(`/v1/spaces/${space.id}`, {
      title: 'Settings v2',
      emoji: '🛠',
      editMode: 'locked',
      language: 'fr',
      mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [editor.userId] }] },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assertMatchesOpenApi('Space', patched.body);
    assert.equal(patched.body.title, 'Settings v2');
    assert.equal(patched.body.emoji, '🛠');
    assert.equal(patched.body.editMode, 'locked');
    assert.equal(patched.body.language, 'fr');
    assert.deepEqual(patched.body.mergeRules, { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [editor.userId] }] });
    assert.deepEqual((await admin.api.get(`/v1/spaces/${space.id}`)).body, patched.body);

    assertError(await admin.api.patch(`/v1/spaces/${space.id}`, { title: 'x'.repeat(51) }), 400, 'title');
    assertError(await admin.api.patch(`/v1/spaces/${space.id}`, { mergeRules: { type: 'sometimes' } }), 400, 'mergeRules');
    assertError(await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: 'owner' }), 400, 'defaultLevel');
    assertError(await admin.api.patch(`/v1/spaces/${space.id}`, { visibility: 'in-collection' }), 400, 'visibility');
    assertError(await editor.api.patch(`/v1/spaces/${space.id}`, { title: 'Mine' }), 403);
    assertError(await outsider.api.patch(`/v1/spaces/${space.id}`, { title: 'Mine' }), 404);

    // A guest-level default hides it from members without a grant; a role level caps at the org role.
    const hidden = await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: null });
    assert.equal(hidden.body.defaultLevel, null);
    assertError(await reader.api.get(`/v1/spaces/${space.id}`), 404);
    await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: 'comment' });
    assert.equal((await reader.api.get(`/v1/spaces/${space.id}`)).body.permissions.comment, false, 'capped at read');
    const asEditor = await editor.api.get(`/v1/spaces/${space.id}`);
    assert.equal(asEditor.body.permissions.comment, true);
    assert.equal(asEditor.body.permissions.edit, false, 'the level caps the editor at comment');
  });

  it('invites users and teams, lists, updates and removes their permissions', async () => {
    const space = await createSpace(admin.api, { title: 'Invitations' });
    const perms = `/v1/spaces/${space.id}/permissions`;
    assert.equal((await admin.api.post(perms, { role: 'edit', users: [guest.userId] })).status, 204);
    const asGuest = await guest.api.get(`/v1/spaces/${space.id}`);
    assert.equal(asGuest.status, 200);
    assert.equal(asGuest.body.permissions.edit, true);
    assert.equal((await guest.api.get(`/v1/orgs/${orgId}/spaces`)).body.count, 1);

    const users = await admin.api.get(`${perms}/users`);
    assert.equal(users.status, 200);
    assert.equal(users.body.count, 1);
    assertMatchesOpenApi('UserContentPermission', users.body.items[0]);
    assert.equal(users.body.items[0].permission, 'edit');
    assert.equal(users.body.items[0].user.id, guest.userId);

    assert.equal((await admin.api.patch(`${perms}/users/${guest.userId}`, { role: 'comment' })).status, 204);
    assert.equal((await guest.api.get(`/v1/spaces/${space.id}`)).body.permissions.edit, false);
    assertError(await admin.api.patch(`${perms}/users/${reader.userId}`, { role: 'comment' }), 404);
    assertError(await admin.api.patch(`${perms}/users/${guest.userId}`, { role: 'boss' }), 400, 'role');
    assertError(await admin.api.post(perms, { role: 'edit' }), 400);
    assertError(await admin.api.post(perms, { role: 'edit', users: ['nobody-has-this-id'] }), 400, 'users');
    assertError(await editor.api.post(perms, { role: 'admin', users: [editor.userId] }), 403);
    assertError(await editor.api.get(`${perms}/users`), 403);
    assertError(await outsider.api.get(`${perms}/users`), 404);

    assert.equal((await admin.api.delete(`${perms}/users/${guest.userId}`)).status, 204);
    assert.equal((await admin.api.delete(`${perms}/users/${guest.userId}`)).status, 204, 'removing twice is fine');
    assertError(await guest.api.get(`/v1/spaces/${space.id}`), 404);

    // A team grant reaches the team's members (through identity's membership team ids).
    const team = await admin.api.put(`/v1/orgs/${orgId}/teams`, { title: 'Owners', members: [reader.userId] });
    assert.ok(team.status < 300, JSON.stringify(team.body));
    assert.equal((await admin.api.post(perms, { role: 'admin', teams: [team.body.id] })).status, 204);
    assert.equal((await reader.api.get(`/v1/spaces/${space.id}`)).body.permissions.admin, true);
    const teams = await admin.api.get(`${perms}/teams`);
    assert.equal(teams.body.count, 1);
    assert.equal(teams.body.items[0].permission, 'admin');
    // The team as identity knows it (title, members), with the spaces its grants reach.
    assertMatchesOpenApi('OrganizationTeam', teams.body.items[0].team);
    assert.deepEqual(teams.body.items[0].team, {
      object: 'team',
      id: team.body.id,
      title: 'Owners',
      members: 1,
      spaces: 1,
      createdAt: team.body.createdAt,
      permissions: { admin: true, view: true },
    });
    assert.equal((await admin.api.patch(`${perms}/teams/${team.body.id}`, { role: null })).status, 204);
    assert.equal((await reader.api.get(`/v1/spaces/${space.id}`)).body.permissions.admin, false);

    // When identity deletes the team, its grants go too.
    await admin.api.post(perms, { role: 'review', teams: [team.body.id] });
    assert.equal((await admin.api.get(`${perms}/teams`)).body.count, 1);
    assert.equal((await admin.api.delete(`/v1/orgs/${orgId}/teams/${team.body.id}`)).status, 204);
    await until(async () => (await admin.api.get(`${perms}/teams`)).body.count === 0, 'the team grant was not removed');
  });

  it("removes a member's grants when identity says they left the organization", async () => {
    const leaver = await account(['add-member', '--org', orgId, '--email', 'leo@acme.test', '--role', 'read']);
    const space = await createSpace(admin.api, { title: 'Farewell' });
    await admin.api.post(`/v1/spaces/${space.id}/permissions`, { role: 'edit', users: [leaver.userId] });
    assert.equal((await admin.api.delete(`/v1/orgs/${orgId}/members/${leaver.userId}`)).status, 204);
    await until(async () => (await admin.api.get(`/v1/spaces/${space.id}/permissions/users`)).body.count === 0, 'the grant was not removed');
  });

  it('deletes into the trash (204), restores within the retention, purges after it', async () => {
    const space = await createSpace(admin.api, { title: 'Trash me' });
    assertError(await editor.api.delete(`/v1/spaces/${space.id}`), 403);
    assert.equal((await admin.api.delete(`/v1/spaces/${space.id}`)).status, 204);
    await eventFor(EVENTS.spaceDeleted.type, space.id);
    assertError(await admin.api.get(`/v1/spaces/${space.id}`), 404);
    const listed = await admin.api.get(`/v1/orgs/${orgId}/spaces?limit=1000`);
    assert.ok(!listed.body.items.some((s: { id: string }) => s.id === space.id));
    assert.equal((await admin.api.delete(`/v1/spaces/${space.id}`)).status, 204, 'deleting twice is fine');
    assert.equal((await admin.api.delete('/v1/spaces/never-existed')).status, 204);
    assertError(await editor.api.post(`/v1/spaces/${space.id}/restore`), 403);

    const restored = await admin.api.post(`/v1/spaces/${space.id}/restore`);
    assert.equal(restored.status, 200);
    assertMatchesOpenApi('Space', restored.body);
    assert.equal(restored.body.deletedAt, undefined);
    assert.equal((await admin.api.get(`/v1/spaces/${space.id}`)).status, 200);

    const doomed = await createSpace(admin.api, { title: 'Doomed' });
    assert.equal((await admin.api.delete(`/v1/spaces/${doomed.id}`)).status, 204);
    await eventFor(EVENTS.spacePurged.type, doomed.id, 300);
    assertError(await admin.api.post(`/v1/spaces/${doomed.id}/restore`), 404);
    // The restored space's older purge job found it live and left it alone.
    assert.equal((await admin.api.get(`/v1/spaces/${space.id}`)).status, 200);
  });

  it('duplicates a space with a copy of its content (201)', async () => {
    const space = await createSpace(admin.api, { title: 'Original', emoji: '🌱' });
    const copy = await admin.api.post(`/v1/spaces/${space.id}/duplicate`);
    assert.equal(copy.status, 201, JSON.stringify(copy.body));
    assertMatchesOpenApi('Space', copy.body);
    assert.notEqual(copy.body.id, space.id);
    assert.notEqual(copy.body.revision, space.revision);
    assert.equal(copy.body.title, 'Original (copy)');
    assert.equal(copy.body.emoji, '🌱');
    assert.equal(copy.headers.get('location'), copy.body.urls.location);
    assertError(await reader.api.post(`/v1/spaces/${space.id}/duplicate`), 403);
    assertError(await outsider.api.post(`/v1/spaces/${space.id}/duplicate`), 404);
  });

  it('moves a space into a collection, next to a sibling, and back to the root', async () => {
    const collection = (await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Guides' })).body;
    const first = await createSpace(admin.api, { title: 'First', parent: collection.id });
    const moving = await createSpace(admin.api, { title: 'Moving' });
    const moved = await admin.api.post(`/v1/spaces/${moving.id}/move`, { parent: collection.id });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assertMatchesOpenApi('Space', moved.body);
    assert.equal(moved.body.parent, collection.id);
    const order = async () => (await admin.api.get(`/v1/collections/${collection.id}/spaces`)).body.items.map((s: { id: string }) => s.id);
    assert.deepEqual(await order(), [first.id, moving.id]);
    const before = await admin.api.post(`/v1/spaces/${moving.id}/move`, { position: { before: { type: 'space', space: first.id } } });
    assert.equal(before.status, 200);
    assert.deepEqual(await order(), [moving.id, first.id]);

    assertError(await admin.api.post(`/v1/spaces/${moving.id}/move`, {}), 400, 'body');
    assertError(await admin.api.post(`/v1/spaces/${moving.id}/move`, { position: { before: { type: 'space', space: 'nope' } } }), 400, 'position');
    assertError(await admin.api.post(`/v1/spaces/${moving.id}/move`, { parent: 'no-such-collection' }), 404);
    assertError(await editor.api.post(`/v1/spaces/${moving.id}/move`, { parent: null }), 403);

    const inCollection = await admin.api.patch(`/v1/spaces/${moving.id}`, { visibility: 'in-collection' });
    assert.equal(inCollection.body.visibility, 'in-collection');
    const root = await admin.api.post(`/v1/spaces/${moving.id}/move`, { parent: null });
    assert.equal(root.status, 200);
    assert.equal(root.body.parent, undefined);
    assert.equal(root.body.visibility, 'private', 'in-collection needs a collection');
  });

  it('transfers a space to another organization the caller administers', async () => {
    const space = await createSpace(admin.api, { title: 'Transferable' });
    await admin.api.post(`/v1/spaces/${space.id}/permissions`, { role: 'edit', users: [guest.userId] });
    const target = await admin.api.post('/v1/orgs', { title: 'Acme Labs' });
    assert.equal(target.status, 201);
    assertError(await admin.api.post(`/v1/spaces/${space.id}/transfer`, {}), 400, 'organization');
    assertError(await admin.api.post(`/v1/spaces/${space.id}/transfer`, { organization: orgId }), 409);
    assertError(await admin.api.post(`/v1/spaces/${space.id}/transfer`, { organization: outsider.organizationId }), 404);
    await account(['add-member', '--org', outsider.organizationId, '--email', 'ada@acme.test', '--role', 'edit']);
    assertError(await admin.api.post(`/v1/spaces/${space.id}/transfer`, { organization: outsider.organizationId }), 403);
    assertError(await editor.api.post(`/v1/spaces/${space.id}/transfer`, { organization: target.body.id }), 403);

    const moved = await admin.api.post(`/v1/spaces/${space.id}/transfer`, { organization: target.body.id });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assertMatchesOpenApi('Space', moved.body);
    assert.equal(moved.body.organization, target.body.id);
    await eventFor(EVENTS.spaceTransferred.type, space.id);
    assertError(await reader.api.get(`/v1/spaces/${space.id}`), 404);
    assertError(await guest.api.get(`/v1/spaces/${space.id}`), 404);
    assert.equal((await admin.api.get(`/v1/spaces/${space.id}`)).status, 200);
  });
  it('shows the default level in force (from the collection chain, admin at the root) and whether it is inherited', async () => {
    const level = (body: { defaultLevel: unknown; defaultLevelInherited: unknown }) => [body.defaultLevel, body.defaultLevelInherited];
    assert.deepEqual(level(await createSpace(admin.api, { title: 'Level at the root' })), ['admin', true], 'the org role: the level admin');
    const shelf = (await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Read shelf' })).body;
    assert.deepEqual(level((await admin.api.patch(`/v1/collections/${shelf.id}`, { defaultLevel: 'read' })).body), ['read', false]);
    const space = await createSpace(admin.api, { title: 'Levels', parent: shelf.id });
    assertMatchesOpenApi('Space', space);
    assert.deepEqual(level(space), ['read', true]);
    assert.deepEqual(level((await reader.api.get(`/v1/spaces/${space.id}`)).body), ['read', true]);
    const listed = async (path: string) => (await admin.api.get(path)).body.items.find((s: { id: string }) => s.id === space.id);
    assert.deepEqual(level(await listed(`/v1/orgs/${orgId}/spaces?limit=1000`)), ['read', true]);
    assert.deepEqual(level(await listed(`/v1/collections/${shelf.id}/spaces`)), ['read', true]);

    const own = await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: 'comment' });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assertMatchesOpenApi('Space', own.body);
    assert.deepEqual(level(own.body), ['comment', false]);
    const inherits = await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: 'inherit' });
    assert.equal(inherits.status, 200, JSON.stringify(inherits.body));
    assert.deepEqual(level(inherits.body), ['read', true], "the collection's level again");
    // 'inherit' is what is stored: the space keeps following its collection.
    await admin.api.patch(`/v1/collections/${shelf.id}`, { defaultLevel: 'edit' });
    assert.deepEqual(level((await admin.api.get(`/v1/spaces/${space.id}`)).body), ['edit', true]);
    const none = await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: null });
    assertMatchesOpenApi('Space', none.body);
    assert.deepEqual(level(none.body), [null, false]);

    await admin.api.patch(`/v1/spaces/${space.id}`, { defaultLevel: 'inherit' });
    const atRoot = await admin.api.post(`/v1/spaces/${space.id}/move`, { parent: null });
    assert.equal(atRoot.status, 200, JSON.stringify(atRoot.body));
    assert.deepEqual(level(atRoot.body), ['admin', true], 'out of the collection: the organization decides');
    assert.deepEqual(level((await admin.api.post(`/v1/spaces/${space.id}/move`, { parent: shelf.id })).body), ['edit', true]);
    const target = await admin.api.post('/v1/orgs', { title: 'Acme Levels' });
    assert.equal(target.status, 201);
    const transferred = await admin.api.post(`/v1/spaces/${space.id}/transfer`, { organization: target.body.id });
    assert.equal(transferred.status, 200, JSON.stringify(transferred.body));
    assert.deepEqual(level(transferred.body), ['admin', true], "at the target's root");
  });

  // FerretDB rewrites a whole document per update without isolation: without the space lock,
  // concurrent writes to different fields of one space lose each other's changes.
  it('keeps every concurrent change to one space (settings, move, merge)', async () => {
    const collection = (await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Concurrency' })).body;
    const space = await createSpace(admin.api, { title: 'Race 0', emoji: '🏁' });
    const emojis = ['🍎', '🍐', '🍊', '🍋', '🍌', '🍉', '🍇', '🍓', '🫐', '🍒'];
    for (let round = 1; round <= 10; round++) {
      const title = `Race ${round}`;
      const emoji = emojis[round - 1];
      const parent = round % 2 === 1 ? collection.id : null;
      const [byTitle, byEmoji, byMove] = await Promise.all([
        admin.api.patch(`/v1/spaces/${space.id}`, { title }),
        admin.api.patch(`/v1/spaces/${space.id}`, { emoji }),
        admin.api.post(`/v1/spaces/${space.id}/move`, { parent }),
      ]);
      for (const response of [byTitle, byEmoji, byMove]) assert.equal(response.status, 200, JSON.stringify(response.body));
      const now = (await admin.api.get(`/v1/spaces/${space.id}`)).body;
      assert.deepEqual({ title: now.title, emoji: now.emoji, parent: now.parent ?? null }, { title, emoji, parent }, `round ${round}`);
    }

    // A settings change racing a merge must not put back the revision the merge replaced.
    for (let round = 1; round <= 5; round++) {
      const cr = await admin.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: `Race ${round}` });
      assert.equal(cr.status, 201, JSON.stringify(cr.body));
      const written = await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/content`, {
        changes: [{ type: 'insert_page', title: `Page ${round}` }],
      });
      assert.equal(written.status, 200, JSON.stringify(written.body));
      const title = `Merged ${round}`;
      const [merged, patched] = await Promise.all([
        admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`),
        admin.api.patch(`/v1/spaces/${space.id}`, { title }),
      ]);
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const now = (await admin.api.get(`/v1/spaces/${space.id}`)).body;
      assert.equal(now.revision, merged.body.revision, `round ${round}: the merged revision stays`);
      assert.equal(now.title, title, `round ${round}: the title stays`);
    }
  });
});
