import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { generate } from 'selfsigned';
import { sharedTestStack, type ApiClient, type TestAccount, type TestStack, expectEvery } from '@quire/testkit';

/** Every item of a list, fetched `limit` at a time through its `next.page` cursors. */
async function pageThrough(api: ApiClient, path: string, limit: number): Promise<{ items: any[]; pages: number; counts: number[] }> {
  const items: any[] = [];
  const counts: number[] = [];
  let page: string | undefined;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response = await api.get(`${path}${separator}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`);
    assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
    assert.ok(response.body.items.length <= limit, path);
    items.push(...response.body.items);
    counts.push(response.body.count);
    page = response.body.next?.page;
    pages++;
    assert.ok(pages < 50, `${path}: the cursor never ends`);
  } while (page);
  return { items, pages, counts };
}

/**
 * The rules of members, teams and SAML that cut across operations: cursors on every list,
 * other organizations' invisibility on every operation, `permissions` telling the truth,
 * all-or-nothing team batches, and the official GitBook client.
 */
describe('identity: directory rules across operations (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount & { organizationId: string };
  const teamIds: string[] = [];
  let providerId: string;

  const account = (args: string[]) => stack.account(args);
  const org = (path = '') => `/v1/orgs/${orgId}${path}`;

  beforeAll(async () => {
    stack = await sharedTestStack();
    admin = await account(['bootstrap', '--email', 'root@dir.test', '--org', 'Directory', '--name', 'Root Admin']);
    orgId = (admin as unknown as { organizationId: string }).organizationId;
    editor = await account(['add-member', '--org', orgId, '--email', 'editor@dir.test', '--role', 'edit']);
    reader = await account(['add-member', '--org', orgId, '--email', 'reader@dir.test', '--role', 'read']);
    guest = await account(['add-member', '--org', orgId, '--email', 'guest@dir.test', '--role', 'guest']);
    outsider = await account(['bootstrap', '--email', 'mallory@else.test', '--org', 'Elsewhere']);
    for (const title of ['Alpha', 'Bravo', 'Charlie']) {
      const created = await admin.api.put(org('/teams'), { title, members: [editor.userId, reader.userId, guest.userId] });
      assert.equal(created.status, 201);
      teamIds.push(created.body.id);
    }
    const pems = await generate([{ name: 'commonName', value: 'idp.dir.test' }], { keySize: 2048, algorithm: 'sha256' });
    const provider = await admin.api.post(org('/saml'), {
      label: 'Dir IdP',
      entityID: 'https://idp.dir.test',
      ssoURL: 'https://idp.dir.test/sso',
      certificate: pems.cert,
      defaultTeam: teamIds[0],
    });
    assert.equal(provider.status, 201);
    providerId = provider.body.id;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('pages through every list with small limits, without repeats or gaps', async () => {
    for (let i = 0; i < 3; i++) {
      const space = await admin.api.post(org('/spaces'), { title: `Space ${i}` });
      assert.equal(space.status, 201, JSON.stringify(space.body));
      if (i < 2) await admin.api.post(`/v1/spaces/${space.body.id}/permissions`, { role: 'edit', teams: [teamIds[1]] });
    }
    await reader.api.post(org('/ping'));
    await editor.api.post(org('/ping'));
    await admin.api.post(org('/ping'));
    // Expected totals; null: whatever one big page says (a member's spaces depend on content's defaults), at least 2.
    const lists: Array<[string, ApiClient, number | null, number]> = [
      [org('/members'), admin.api, 4, 1],
      [org('/members?sort=name&order=asc'), admin.api, 4, 2],
      [org('/members?sort=lastSeenAt&order=asc'), admin.api, 3, 2],
      [org('/members?role=read&sort=lastSeenAt'), admin.api, 1, 1],
      [org('/teams'), reader.api, 3, 1],
      [org('/teams?title=a'), reader.api, 3, 2],
      [org(`/teams/${teamIds[0]}/members`), admin.api, 3, 1],
      [org(`/members/${editor.userId}/teams`), reader.api, 3, 2],
      [org(`/members/${editor.userId}/spaces`), admin.api, null, 1],
      [org(`/members/${editor.userId}/spaces?order=asc`), editor.api, null, 1],
      [org(`/members/${admin.userId}/spaces`), admin.api, 3, 2],
      [org('/saml'), admin.api, 1, 1],
    ];
    const idOf = (i: any) => i.id ?? i.organization?.id ?? i.team?.id ?? i.space?.id;
    for (const [path, api, expected, limit] of lists) {
      const all = await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=1000`);
      const total = expected ?? all.body.count;
      assert.ok(total >= 1 && (expected !== null || total >= 2), path);
      const { items, pages, counts } = await pageThrough(api, path, limit);
      const ids = items.map(idOf);
      assert.equal(items.length, total, path);
      assert.equal(new Set(ids).size, total, `${path}: no repeats`);
      assert.equal(pages, Math.ceil(total / limit), path);
      expectEvery(counts, (c) => c === total, `${path}: count is the total on every page`);
      assert.deepEqual(ids, all.body.items.map(idOf), `${path}: same order as one page`);
    }
    // Member.spaces, Member.teams, Team.members and Team.spaces are the lists' true totals.
    const editorSpaces = (await admin.api.get(org(`/members/${editor.userId}/spaces`))).body.count;
    const editorMember = (await admin.api.get(org(`/members/${editor.userId}`))).body;
    assert.deepEqual([editorMember.spaces, editorMember.teams], [editorSpaces, 3]);
    const listed = (await admin.api.get(org('/members'))).body.items.find((m: any) => m.id === editor.userId);
    assert.deepEqual([listed.spaces, listed.teams], [editorSpaces, 3]);
    const bravo = (await admin.api.get(org(`/teams/${teamIds[1]}`))).body;
    assert.deepEqual([bravo.members, bravo.spaces], [3, 2]);
    const alpha = (await reader.api.get(org('/teams?title=alpha'))).body.items[0];
    assert.deepEqual([alpha.members, alpha.spaces], [3, 0]);
    const asc = await pageThrough(admin.api, org('/members?sort=lastSeenAt&order=asc'), 2);
    assert.deepEqual(
      asc.items.map((m) => m.id),
      [reader.userId, editor.userId, admin.userId],
    );
    assert.equal((await admin.api.get(org(`/teams?limit=1&page=${encodeURIComponent('garbage')}`))).status, 400);
  });

  it('shows a member of another organization nothing, on every operation', async () => {
    const t = teamIds[2];
    const operations: Array<[string, string, unknown?]> = [
      ['GET', '/members'],
      ['GET', `/members/${editor.userId}`],
      ['PATCH', `/members/${editor.userId}`, { role: 'admin' }],
      ['DELETE', `/members/${editor.userId}`],
      ['POST', '/ping'],
      ['POST', `/members/${editor.userId}/sso`],
      ['GET', `/members/${editor.userId}/spaces`],
      ['GET', `/members/${editor.userId}/teams`],
      ['GET', '/teams'],
      ['PUT', '/teams', { title: 'Intruders' }],
      ['GET', `/teams/${t}`],
      ['PATCH', `/teams/${t}`, { title: 'Mine now' }],
      ['DELETE', `/teams/${t}`],
      ['GET', `/teams/${t}/members`],
      ['PUT', `/teams/${t}/members`, { add: [outsider.userId] }],
      ['PUT', `/teams/${t}/members/${editor.userId}`, { role: 'owner' }],
      ['DELETE', `/teams/${t}/members/${editor.userId}`],
      ['GET', '/saml'],
      ['POST', '/saml', { label: 'Evil' }],
      ['GET', `/saml/${providerId}`],
      ['PATCH', `/saml/${providerId}`, { label: 'Evil' }],
      ['DELETE', `/saml/${providerId}`],
      ['GET', '/sso'],
    ];
    assert.equal(operations.length, 23);
    for (const [method, path, body] of operations) {
      const response = await outsider.api.request(method, org(path), { body });
      assert.equal(response.status, 404, `${method} ${path}`);
      const text = JSON.stringify(response.body);
      for (const id of [editor.userId, t, providerId]) assert.equal(text.includes(id), false, `${method} ${path} leaks nothing`);
    }
    // Nothing was changed by those attempts.
    assert.equal((await admin.api.get(org(`/members/${editor.userId}`))).body.role, 'edit');
    assert.equal((await admin.api.get(org(`/teams/${t}`))).body.title, 'Charlie');
    assert.equal((await admin.api.get(org(`/saml/${providerId}`))).body.label, 'Dir IdP');
    assert.equal((await admin.api.get(org('/teams?title=intruders'))).body.count, 0);
  });

  it('grants exactly what Organization.permissions and Team.permissions say', async () => {
    for (const who of [admin, editor, reader, guest]) {
      const { permissions } = (await who.api.get(org())).body;
      const allowed = async (path: string) => (await who.api.get(org(path))).status === 200;
      assert.equal(await allowed('/members'), permissions.listMembers, `listMembers of ${who.userId}`);
      assert.equal(await allowed('/teams'), permissions.listTeams, `listTeams of ${who.userId}`);
      assert.equal(await allowed('/saml'), permissions.admin, `admin of ${who.userId}`);
      assert.equal(await allowed('/sso'), permissions.view);
      const team = await who.api.get(org(`/teams/${teamIds[2]}`));
      assert.equal(team.status, 200);
      const renamed = await who.api.patch(org(`/teams/${teamIds[2]}`), { title: 'Charlie' });
      assert.equal(renamed.status === 200, team.body.permissions.admin, `team admin of ${who.userId}`);
      if (!team.body.permissions.admin) assert.equal(renamed.status, 403, 'a visible team: 403');
    }
    // Team owners manage their own team's members, and nothing else.
    assert.equal((await admin.api.put(org(`/teams/${teamIds[2]}/members/${reader.userId}`), { role: 'owner' })).status, 204);
    const owned = await reader.api.get(org(`/teams/${teamIds[2]}`));
    assert.deepEqual(owned.body.permissions, { admin: true, view: true });
    assert.equal((await reader.api.get(org())).body.permissions.ownTeam, true);
    assert.equal((await reader.api.put(org(`/teams/${teamIds[2]}/members`), { remove: [guest.userId] })).status, 204);
    assert.equal((await reader.api.put(org(`/teams/${teamIds[1]}/members`), { remove: [guest.userId] })).status, 403);
    assert.equal((await reader.api.patch(org(`/members/${guest.userId}`), { role: 'read' })).status, 403);
    // A guest outside a team does not see it at all.
    assert.equal((await guest.api.get(org(`/teams/${teamIds[2]}`))).status, 404);
    assert.equal((await guest.api.get(org(`/teams/${teamIds[1]}`))).status, 200, 'a guest sees their own team');
  });

  it('applies a team-members batch all or nothing, and names whoever may not join', async () => {
    const path = org(`/teams/${teamIds[1]}/members`);
    const before = (await admin.api.get(path)).body.items.map((i: any) => [i.organization.id, i.team.role]);
    for (const body of [
      { remove: [editor.userId], memberships: { [outsider.userId]: { role: 'owner' } } },
      { remove: [reader.userId], add: ['nobody@nowhere.test'] },
      { add: [admin.userId], memberships: { [editor.userId]: { role: 'owner' }, 'mallory@else.test': { role: 'member' } } },
    ]) {
      const refused = await admin.api.put(path, body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.match(refused.body.error.message, /(add|memberships): .*(nobody@nowhere\.test|mallory@else\.test|[A-Za-z0-9_-]{6,})/);
      assert.deepEqual(
        (await admin.api.get(path)).body.items.map((i: any) => [i.organization.id, i.team.role]),
        before,
        'nothing applied',
      );
    }
    const single = await admin.api.put(`${path}/${outsider.userId}`, { role: 'member' });
    assert.equal(single.status, 400);
    assert.match(single.body.error.message, new RegExp(`userId: .*${outsider.userId}`));
    assert.equal((await admin.api.put(`${path}/no-such-user`, { role: 'member' })).status, 404);
    assert.equal((await admin.api.put(org('/teams/no-such-team/members'), { add: [editor.userId] })).status, 404);
    assert.equal((await admin.api.put(path, { add: 'editor' })).status, 400);
  });

  it('names the field of every bad input', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/members?search=' + 'x'.repeat(513), undefined, 'search'],
      ['GET', '/members?limit=2.5', undefined, 'limit'],
      ['GET', '/teams?owner=' + 'x'.repeat(65), undefined, 'owner'],
      ['GET', '/teams?title=' + 'x'.repeat(65), undefined, 'title'],
      ['GET', `/members/${editor.userId}/teams?limit=5000`, undefined, 'limit'],
      ['GET', `/members/${editor.userId}/spaces?page=nonsense`, undefined, 'page'],
      ['GET', `/teams/${teamIds[0]}/members?page=nonsense`, undefined, 'page'],
      ['PATCH', `/teams/${teamIds[0]}`, { title: ' padded' }, 'title'],
      ['PATCH', `/teams/${teamIds[0]}`, {}, 'title'],
      ['PATCH', `/members/${editor.userId}`, {}, 'role'],
      ['PUT', `/teams/${teamIds[0]}/members/${editor.userId}`, { role: 'boss' }, 'role'],
      ['PUT', `/teams/${teamIds[0]}/members`, { remove: [''] }, 'remove'],
      ['PATCH', `/saml/${providerId}`, { ssoURL: 'ftp//x' }, 'ssoURL'],
      ['PATCH', `/saml/${providerId}`, { label: '' }, 'label'],
      ['PATCH', `/saml/${providerId}`, { defaultTeam: 'missing-team' }, 'defaultTeam'],
      ['PATCH', `/saml/${providerId}`, { certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'certificate'],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await admin.api.request(method, org(path), { body });
      assert.equal(response.status, 400, `${method} ${path.slice(0, 60)}`);
      assert.match(response.body.error.message, new RegExp(`\\b${field}(\\.\\d+)?:`), `${method} ${path.slice(0, 60)}`);
    }
    assert.equal((await admin.api.get(org('/members/no-such-user/teams'))).status, 404);
    assert.equal((await admin.api.get(org('/members/no-such-user/spaces'))).status, 404);
    assert.equal((await admin.api.get(org('/teams?owner=no-such-user'))).status, 404);
    assert.equal((await admin.api.post(org('/members/no-such-user/sso'))).status, 404);
    assert.equal((await admin.api.delete(org('/teams/no-such-team/members/' + editor.userId))).status, 404);
  });

  it('works with the official GitBook API client unchanged', async () => {
    // The client's typings do not resolve under nodenext CommonJS; its runtime is what matters here.
    const client: any = new GitBookAPI({ authToken: admin.token, endpoint: stack.baseUrl });
    const members = await client.orgs.listMembersInOrganizationById(orgId, { role: 'edit', search: 'EDITOR', sort: 'joinedAt', order: 'asc', limit: 10 });
    assert.deepEqual(
      members.data.items.map((m: any) => m.id),
      [editor.userId],
    );
    const team = await client.orgs.createOrganizationTeam(orgId, { title: 'Client team', members: [editor.userId] });
    assert.equal(team.status, 201);
    await client.orgs.updateMembersInOrganizationTeam(orgId, team.data.id, { add: ['reader@dir.test'], memberships: { [editor.userId]: { role: 'owner' } } });
    await client.orgs.addMemberToOrganizationTeamById(orgId, team.data.id, guest.userId, { role: 'member' });
    const teamMembers = await client.orgs.listTeamMembersInOrganizationById(orgId, team.data.id, { limit: 10 });
    assert.equal(teamMembers.data.count, 3);
    const owned = await client.orgs.listTeamsInOrganizationById(orgId, { owner: editor.userId, title: 'client' });
    assert.deepEqual(
      owned.data.items.map((t: any) => t.id),
      [team.data.id],
    );
    const theirs = await client.orgs.listTeamsForOrganizationMember(orgId, editor.userId, { title: 'CLIENT' });
    assert.deepEqual(
      theirs.data.items.map((i: any) => [i.team.id, i.member.role]),
      [[team.data.id, 'owner']],
    );
    const renamed = await client.orgs.updateTeamInOrganizationById(orgId, team.data.id, { title: 'Client crew' });
    assert.equal(renamed.data.title, 'Client crew');
    const pinged = await client.orgs.updateOrganizationMemberLastSeenAt(orgId);
    assert.equal(typeof pinged.data.serviceVisitorClaims, 'string');
    const role = await client.orgs.updateMemberInOrganizationById(orgId, guest.userId, { role: 'comment' });
    assert.equal(role.data.role, 'comment');
    const spaces = await client.orgs.listSpacesForOrganizationMember(orgId, editor.userId, { order: 'asc' });
    assert.ok(spaces.data.items.length >= 2, 'the two spaces granted to their team at least');
    const providers = await client.orgs.listSamlProvidersInOrganizationById(orgId, { limit: 5 });
    assert.deepEqual(
      providers.data.items.map((p: any) => p.id),
      [providerId],
    );
    const patched = await client.orgs.updateOrganizationSamlProvider(orgId, providerId, { defaultRole: 'read' });
    assert.equal(patched.data.defaultRole, 'read');
    await client.orgs.deleteMemberFromOrganizationTeamById(orgId, team.data.id, guest.userId);
    await client.orgs.removeTeamFromOrganizationById(orgId, team.data.id);
    assert.equal((await admin.api.get(org(`/teams/${team.data.id}`))).status, 404);
  });
});
