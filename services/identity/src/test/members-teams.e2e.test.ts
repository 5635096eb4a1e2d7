import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createEventBus, EVENTS, type DomainEvent, type EventBus } from '@quire/async';
import { createLogger } from '@quire/runtime';
import { assertMatchesOpenApi, sharedTestStack, type ApiClient, type TestAccount, type TestStack } from '@quire/testkit';

/** The whole OpenAPI Member, `sites` (counted by publishing) included. */
function assertMember(body: unknown): void {
  assertMatchesOpenApi('OrganizationMember', body);
}

/** Organization members, teams and team members through the gateway, on the whole stack. */
describe('identity: members and teams (end to end)', () => {
  let stack: TestStack;
  let events: EventBus;
  const seen: DomainEvent[] = [];
  let orgId: string;
  let admin: TestAccount & { api: ApiClient };
  let editor: TestAccount & { api: ApiClient };
  let reader: TestAccount & { api: ApiClient };
  let guest: TestAccount & { api: ApiClient };
  let outsider: TestAccount & { api: ApiClient; organizationId: string };

  const account = (args: string[]) => stack.account(args);
  const members = (path = '') => `/v1/orgs/${orgId}/members${path}`;
  const teams = (path = '') => `/v1/orgs/${orgId}/teams${path}`;
  const eventFor = async (type: string, match: (payload: any) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const found = seen.find((e) => e.type === type && match(e.payload));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`no ${type} event`);
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    admin = await account(['bootstrap', '--email', 'ada@teams-acme.test', '--org', 'Acme', '--name', 'Ada Lovelace']);
    orgId = (admin as unknown as { organizationId: string }).organizationId;
    editor = await account(['add-member', '--org', orgId, '--email', 'grace.hopper@teams-acme.test', '--role', 'edit']);
    reader = await account(['add-member', '--org', orgId, '--email', 'Linus@teams-acme.test', '--role', 'read']);
    guest = await account(['add-member', '--org', orgId, '--email', 'guest@teams-elsewhere.test', '--role', 'guest']);
    outsider = await account(['bootstrap', '--email', 'eve@other.test', '--org', 'Other Org']);
    events = createEventBus({ redisUrl: stack.env.redisUrl, prefix: stack.env.redisPrefix, logger: createLogger('test', 'silent') });
    await events.subscribe('identity-e2e-test', [EVENTS.teamDeleted, EVENTS.memberRemoved], async (event) => void seen.push(event), { blockMs: 200 });
  });

  afterAll(async () => {
    await events?.close();
    await stack?.stop();
  });

  it('lists members with the Member shape, role and text filters, order and keyset pages', async () => {
    const all = await admin.api.get(members());
    assert.equal(all.status, 200);
    assert.equal(all.body.count, 4);
    assert.deepEqual(
      all.body.items.map((m: any) => m.user.email),
      ['guest@teams-elsewhere.test', 'linus@teams-acme.test', 'grace.hopper@teams-acme.test', 'ada@teams-acme.test'],
      'newest first by default',
    );
    const ada = all.body.items[3];
    assertMember(ada);
    assert.equal(ada.object, 'member');
    assert.equal(ada.id, admin.userId);
    assert.equal(ada.role, 'admin');
    assert.equal(ada.user.displayName, 'Ada Lovelace');
    assert.equal(ada.sso, false);
    assert.equal(ada.disabled, false);
    assert.equal(ada.teams, 0);
    assert.equal(typeof ada.spaces, 'number');
    for (const member of all.body.items) assertMember(member);
    assert.deepEqual(
      all.body.items.map((m: any) => m.sites),
      [0, 0, 0, 0],
      'no sites yet',
    );

    const asc = await admin.api.get(members('?order=asc'));
    assert.equal(asc.body.items[0].id, admin.userId);
    assert.deepEqual(
      (await admin.api.get(members('?role=read'))).body.items.map((m: any) => m.id),
      [reader.userId],
    );
    assert.deepEqual(
      (await admin.api.get(members('?role=guest'))).body.items.map((m: any) => m.id),
      [guest.userId],
    );
    assert.deepEqual(
      (await admin.api.get(members('?search=LOVELACE'))).body.items.map((m: any) => m.id),
      [admin.userId],
      'display name, any case',
    );
    assert.deepEqual(
      (await admin.api.get(members('?search=Hopper@'))).body.items.map((m: any) => m.id),
      [editor.userId],
      'e-mail, any case',
    );
    assert.deepEqual((await admin.api.get(members('?search=a.b*c'))).body.items, [], 'the query is text, not a pattern');
    const byName = await admin.api.get(members('?sort=name&order=asc'));
    assert.deepEqual(
      byName.body.items.map((m: any) => m.user.displayName),
      ['Ada Lovelace', 'grace.hopper', 'guest', 'linus'],
    );

    const ids: string[] = [];
    let page = await admin.api.get(members('?limit=3'));
    ids.push(...page.body.items.map((m: any) => m.id));
    assert.equal(page.body.count, 4);
    assert.ok(page.body.next?.page);
    page = await admin.api.get(members(`?limit=3&page=${page.body.next.page}`));
    ids.push(...page.body.items.map((m: any) => m.id));
    assert.equal(page.body.next, undefined);
    assert.deepEqual(
      ids,
      all.body.items.map((m: any) => m.id),
    );

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['role=owner', 'role'],
      ['sort=email', 'sort'],
      ['order=up', 'order'],
      ['page=junk', 'page'],
    ]) {
      const bad = await admin.api.get(members(`?${query}`));
      assert.equal(bad.status, 400, query);
      assert.match(bad.body.error.message, new RegExp(`${field}:`), query);
    }
  });

  it('lets members read the directory, guests only themselves, other organizations nothing', async () => {
    assert.equal((await reader.api.get(members())).status, 200);
    assert.equal((await reader.api.get(members(`/${editor.userId}`))).status, 200);
    assert.equal((await guest.api.get(members())).status, 403);
    assert.equal((await guest.api.get(members(`/${editor.userId}`))).status, 403);
    const self = await guest.api.get(members(`/${guest.userId}`));
    assert.equal(self.status, 200);
    assert.equal(self.body.role, null);
    assertMember(self.body);
    for (const path of [members(), members(`/${admin.userId}`), teams(), `/v1/orgs/${orgId}/ping`]) {
      const response = path.endsWith('ping') ? await outsider.api.post(path) : await outsider.api.get(path);
      assert.equal(response.status, 404, path);
      assert.equal(JSON.stringify(response.body).includes(admin.userId), false);
    }
    assert.equal((await admin.api.get(members(`/${outsider.userId}`))).status, 404, 'not a member of this organization');
    assert.equal((await admin.api.get(`/v1/orgs/${outsider.organizationId}/members`)).status, 404);
  });

  it('counts the sites each member sees: every site of the organization with a role, none as a guest', async () => {
    for (const title of ['Docs', 'API reference']) {
      const created = await admin.api.post(`/v1/orgs/${orgId}/sites`, { title });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const theirs = await outsider.api.post(`/v1/orgs/${outsider.organizationId}/sites`, { title: 'Not theirs to count' });
    assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
    // What publishing itself shows them.
    assert.equal((await reader.api.get(`/v1/orgs/${orgId}/sites`)).body.count, 2);
    assert.equal((await guest.api.get(`/v1/orgs/${orgId}/sites`)).status, 404);

    const expected = { [admin.userId]: 2, [editor.userId]: 2, [reader.userId]: 2, [guest.userId]: 0 };
    const listed = await admin.api.get(members());
    assert.equal(listed.status, 200);
    for (const member of listed.body.items) assertMember(member);
    assert.deepEqual(Object.fromEntries(listed.body.items.map((m: any) => [m.id, m.sites])), expected);
    assert.deepEqual(
      Object.fromEntries((await reader.api.get(members('?role=guest'))).body.items.map((m: any) => [m.id, m.sites])),
      { [guest.userId]: 0 },
      'a page of guests only',
    );
    const one = await reader.api.get(members(`/${editor.userId}`));
    assertMember(one.body);
    assert.equal(one.body.sites, 2);
    const self = await guest.api.get(members(`/${guest.userId}`));
    assertMember(self.body);
    assert.equal(self.body.sites, 0);
    assert.equal(
      (await outsider.api.get(`/v1/orgs/${outsider.organizationId}/members/${outsider.userId}`)).body.sites,
      1,
      'each organization counts its own sites',
    );
  });

  it('records activity on ping and sorts by last activity, listing only active members', async () => {
    const pinged = await reader.api.post(`/v1/orgs/${orgId}/ping`);
    assert.equal(pinged.status, 200);
    assert.equal(typeof pinged.body.serviceVisitorClaims, 'string');
    assert.equal(pinged.body.serviceVisitorClaims.split('.').length, 3);
    assert.equal((await editor.api.post(`/v1/orgs/${orgId}/ping`)).status, 200);
    const active = await admin.api.get(members('?sort=lastSeenAt'));
    assert.deepEqual(
      active.body.items.map((m: any) => m.id),
      [editor.userId, reader.userId],
    );
    assert.equal(active.body.count, 2);
    assert.ok(!Number.isNaN(Date.parse(active.body.items[0].lastSeenAt)));
    const oldest = await admin.api.get(members('?sort=lastSeenAt&order=asc&limit=1'));
    assert.deepEqual(
      oldest.body.items.map((m: any) => m.id),
      [reader.userId],
    );
  });

  it('changes roles (admins only), never leaving the organization without an admin', async () => {
    const changed = await admin.api.patch(members(`/${reader.userId}`), { role: 'comment' });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.role, 'comment');
    assertMember(changed.body);
    assert.equal(changed.body.sites, 2);
    const guestNow = await admin.api.patch(members(`/${reader.userId}`), { role: null });
    assert.equal(guestNow.body.role, null);
    assertMember(guestNow.body);
    assert.equal(guestNow.body.sites, 0, 'a guest sees no site');
    const back = await admin.api.patch(members(`/${reader.userId}`), { role: 'read' });
    assert.equal(back.body.role, 'read');
    assert.equal(back.body.sites, 2);

    const bad = await admin.api.patch(members(`/${reader.userId}`), { role: 'owner' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /role:/);
    assert.equal((await admin.api.patch(members('/nobody'), { role: 'read' })).status, 404);
    assert.equal((await editor.api.patch(members(`/${reader.userId}`), { role: 'admin' })).status, 403);
    assert.equal((await outsider.api.patch(members(`/${reader.userId}`), { role: 'admin' })).status, 404);

    const lastAdmin = await admin.api.patch(members(`/${admin.userId}`), { role: 'edit' });
    assert.equal(lastAdmin.status, 409);
    assert.equal((await admin.api.delete(members(`/${admin.userId}`))).status, 409);
    assert.equal((await admin.api.get(members(`/${admin.userId}`))).body.role, 'admin');

    const sso = await admin.api.post(members(`/${editor.userId}/sso`));
    assert.equal(sso.status, 200);
    assert.equal(sso.body.sso, true);
    assertMember(sso.body);
    assert.equal(sso.body.sites, 2);
    assert.equal((await reader.api.post(members(`/${editor.userId}/sso`))).status, 403);
    assert.equal((await admin.api.post(members('/nobody/sso'))).status, 404);
  });

  let teamId: string;

  it('creates, lists, renames teams; members must belong to the organization', async () => {
    const created = await admin.api.put(teams(), { title: 'Writers', members: [editor.userId, 'linus@teams-acme.test'] });
    assert.equal(created.status, 201);
    assertMatchesOpenApi('OrganizationTeam', created.body);
    assert.equal(created.body.object, 'team');
    assert.equal(created.body.members, 2);
    assert.deepEqual(created.body.permissions, { admin: true, view: true });
    teamId = created.body.id;

    const stranger = await admin.api.put(teams(), { title: 'Strangers', members: [editor.userId, 'eve@other.test'] });
    assert.equal(stranger.status, 400);
    assert.match(stranger.body.error.message, /members: .*eve@other\.test/);
    for (const [body, field] of [
      [{ title: '' }, 'title'],
      [{ title: 'x'.repeat(65) }, 'title'],
      [{}, 'title'],
      [{ title: 'Ok', members: 'nope' }, 'members'],
      [{ title: 'Ok', colour: 'red' }, 'body'],
    ] as const) {
      const bad = await admin.api.put(teams(), body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.match(bad.body.error.message, new RegExp(`${field}`));
    }
    assert.equal((await editor.api.put(teams(), { title: 'Mine' })).status, 403);
    await admin.api.put(teams(), { title: 'Reviewers' });

    const listed = await reader.api.get(teams());
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.items.map((t: any) => t.title),
      ['Reviewers', 'Writers'],
      'alphabetical, Strangers never created',
    );
    assert.deepEqual(listed.body.items[1].permissions, { admin: false, view: true });
    for (const team of listed.body.items) assertMatchesOpenApi('OrganizationTeam', team);
    assert.deepEqual(
      (await admin.api.get(teams('?title=RIT'))).body.items.map((t: any) => t.title),
      ['Writers'],
    );
    assert.equal((await guest.api.get(teams())).status, 403);
    assert.equal((await admin.api.get(teams('?limit=abc'))).status, 400);

    const renamed = await admin.api.patch(teams(`/${teamId}`), { title: 'Authors' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.title, 'Authors');
    assert.equal((await admin.api.patch(teams(`/${teamId}`), { title: ' x' })).status, 400);
    assert.equal((await reader.api.patch(teams(`/${teamId}`), { title: 'Mine' })).status, 403);
    assert.equal((await admin.api.get(teams('/missing'))).status, 404);
    assert.equal((await outsider.api.get(teams(`/${teamId}`))).status, 404);
    assert.equal((await outsider.api.get(`/v1/orgs/${outsider.organizationId}/teams/${teamId}`)).status, 404, 'a team is only found in its organization');
  });

  it('updates team members in batches, all or nothing, removal winning', async () => {
    const path = teams(`/${teamId}/members`);
    const invalid = await admin.api.put(path, { add: [guest.userId, 'eve@other.test'], remove: [editor.userId] });
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.error.message, /add: .*eve@other\.test/);
    let listed = await admin.api.get(path);
    assert.equal(listed.body.count, 2, 'nothing of the bad batch was applied');

    const updated = await admin.api.put(path, {
      add: ['GUEST@teams-elsewhere.test', admin.userId],
      remove: [reader.userId, admin.userId, 'nobody@nowhere.test'],
      memberships: { [editor.userId]: { role: 'owner' } },
    });
    assert.equal(updated.status, 204);
    listed = await admin.api.get(path);
    assert.equal(listed.status, 200);
    const roles = Object.fromEntries(listed.body.items.map((i: any) => [i.organization.id, i.team.role]));
    assert.deepEqual(roles, { [editor.userId]: 'owner', [guest.userId]: 'member' });
    for (const item of listed.body.items) assertMatchesOpenApi('OrganizationTeamMember', item);
    const sites = Object.fromEntries(listed.body.items.map((i: any) => [i.organization.id, i.organization.sites]));
    assert.deepEqual(sites, { [editor.userId]: 2, [guest.userId]: 0 });
    assert.equal(listed.body.items[0].permissions.view, true);
    const bad = await admin.api.put(path, { memberships: { [editor.userId]: { role: 'boss' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /memberships/);

    // The owner now manages the team; the guest member sees the team but manages nothing.
    assert.equal((await editor.api.put(`${path}/${reader.userId}`, { role: 'member' })).status, 204);
    assert.equal((await editor.api.put(`${path}/${reader.userId}`, { role: 'chief' })).status, 400);
    assert.equal((await editor.api.put(`${path}/${outsider.userId}`, { role: 'member' })).status, 400, 'not an org member');
    assert.equal((await editor.api.put(`${path}/no-such-user`, { role: 'member' })).status, 404);
    assert.equal((await editor.api.patch(teams(`/${teamId}`), { title: 'Writers' })).body.title, 'Writers');
    assert.equal((await editor.api.delete(teams(`/${teamId}`))).status, 403, 'only admins delete teams');
    assert.equal((await guest.api.get(teams(`/${teamId}`))).status, 200);
    assert.equal((await guest.api.put(path, { add: [admin.userId] })).status, 403);
    assert.equal((await reader.api.delete(`${path}/${editor.userId}`)).status, 403);
    assert.equal((await outsider.api.get(path)).status, 404);

    const owned = await admin.api.get(teams(`?owner=${editor.userId}`));
    assert.deepEqual(
      owned.body.items.map((t: any) => t.id),
      [teamId],
    );
    assert.equal((await admin.api.get(teams(`?owner=${reader.userId}`))).body.count, 0);
    assert.equal((await admin.api.get(teams(`?owner=${admin.userId}`))).body.count, 2, 'admins manage every team');
    const asOwner = await editor.api.get(teams());
    assert.equal(asOwner.body.items.find((t: any) => t.id === teamId).permissions.admin, true);
    const org = await editor.api.get(`/v1/orgs/${orgId}`);
    assert.equal(org.body.permissions.ownTeam, true);

    const memberTeams = await reader.api.get(members(`/${editor.userId}/teams`));
    assert.equal(memberTeams.status, 200);
    assert.deepEqual(
      memberTeams.body.items.map((i: any) => [i.team.title, i.member.role]),
      [['Writers', 'owner']],
    );
    assertMatchesOpenApi('OrganizationTeam', memberTeams.body.items[0].team);
    assert.equal((await reader.api.get(members(`/${editor.userId}/teams?title=zzz`))).body.count, 0);
    assert.equal((await guest.api.get(members(`/${guest.userId}/teams`))).body.count, 1, 'guests see their own teams');
    assert.equal((await guest.api.get(members(`/${editor.userId}/teams`))).status, 403);
    assert.equal((await admin.api.get(members(`/${outsider.userId}/teams`))).status, 404);
    const editorMember = await admin.api.get(members(`/${editor.userId}`));
    assert.equal(editorMember.body.teams, 1);

    assert.equal((await editor.api.delete(`${path}/${reader.userId}`)).status, 204);
    assert.equal((await editor.api.delete(`${path}/${reader.userId}`)).status, 204, 'also when not a member');
    assert.equal((await guest.api.delete(`${path}/${guest.userId}`)).status, 204, 'members may leave');
    assert.equal((await admin.api.get(teams(`/${teamId}`))).body.members, 1);
  });

  it('counts and lists the spaces of members and teams through content', async () => {
    const created = await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Handbook' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const spaceId = created.body.id;
    const granted = await admin.api.post(`/v1/spaces/${spaceId}/permissions`, { role: 'edit', teams: [teamId] });
    assert.ok(granted.status < 300, JSON.stringify(granted.body));

    const team = await admin.api.get(teams(`/${teamId}`));
    assert.ok(team.body.spaces >= 1, 'the team reaches the space it was granted');
    const member = await admin.api.get(members(`/${editor.userId}`));
    assert.ok(member.body.spaces >= 1);

    const spaces = await admin.api.get(members(`/${editor.userId}/spaces`));
    assert.equal(spaces.status, 200, JSON.stringify(spaces.body));
    const item = spaces.body.items.find((i: any) => i.space.id === spaceId);
    assert.ok(item, 'the team grant gives the editor the space');
    assertMatchesOpenApi('MemberContentPermission', item);
    assert.equal((await editor.api.get(members(`/${editor.userId}/spaces?order=asc`))).status, 200, 'members see their own spaces');
    assert.equal((await reader.api.get(members(`/${editor.userId}/spaces`))).status, 403);
    assert.equal((await admin.api.get(members(`/${editor.userId}/spaces?order=sideways`))).status, 400);
    assert.equal((await outsider.api.get(members(`/${editor.userId}/spaces`))).status, 404);
  });

  it('deletes teams (204 also when missing) and tells content', async () => {
    const doomed = await admin.api.put(teams(), { title: 'Doomed', members: [reader.userId] });
    assert.equal((await reader.api.delete(teams(`/${doomed.body.id}`))).status, 403);
    assert.equal((await admin.api.delete(teams(`/${doomed.body.id}`))).status, 204);
    assert.equal((await admin.api.delete(teams(`/${doomed.body.id}`))).status, 204);
    assert.equal((await admin.api.get(teams(`/${doomed.body.id}`))).status, 404);
    assert.equal((await admin.api.get(members(`/${reader.userId}/teams`))).body.count, 0);
    const event = await eventFor(EVENTS.teamDeleted.type, (p) => p.teamId === doomed.body.id);
    assert.deepEqual(event.payload, { organizationId: orgId, teamId: doomed.body.id });
    assert.equal((await outsider.api.delete(teams(`/${teamId}`))).status, 404);
  });

  it('removes members with their team memberships (204 also when not a member) and tells content', async () => {
    assert.equal((await reader.api.delete(members(`/${editor.userId}`))).status, 403);
    assert.equal((await admin.api.delete(members(`/${editor.userId}`))).status, 204);
    assert.equal((await admin.api.delete(members(`/${editor.userId}`))).status, 204);
    assert.equal((await admin.api.get(members(`/${editor.userId}`))).status, 404);
    assert.equal((await admin.api.get(teams(`/${teamId}/members`))).body.count, 0, 'their team membership went with them');
    assert.equal((await editor.api.get(members())).status, 404, 'a removed member sees nothing any more');
    const event = await eventFor(EVENTS.memberRemoved.type, (p) => p.userId === editor.userId);
    assert.deepEqual(event.payload, { organizationId: orgId, userId: editor.userId });
    assert.equal((await guest.api.delete(members(`/${guest.userId}`))).status, 204, 'members may leave');

    // With a second admin, the first may step down.
    assert.equal((await admin.api.patch(members(`/${reader.userId}`), { role: 'admin' })).status, 200);
    assert.equal((await admin.api.patch(members(`/${admin.userId}`), { role: 'create' })).body.role, 'create');
  });
});
