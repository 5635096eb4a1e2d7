import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { sharedTestStack, type ApiResponse, type TestAccount, type TestStack, expectError as assertError, expectOk as ok } from '@quire/testkit';

/**
 * Who a space, a collection or a change request may name: only members and teams of its
 * own organization (never another tenant's user, whose e-mail a grant would then show),
 * with one answer for unknown and foreign ids; and identical writes sent at once never
 * answer 500.
 */
describe('content: grants and reviewers within the organization (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let reviewer: TestAccount;
  let reader: TestAccount;
  let outsider: TestAccount;
  let outsiderEmail: string;

  const newSpace = async (title: string) => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201);
  const notMember = (response: ApiResponse, field: string, id: string) => {
    assertError(response, 400, field);
    const what = field === 'teams' ? 'a team' : 'a member';
    assert.equal(response.body.error.message, `Invalid body: ${field}: ${id} is not ${what} of this organization`);
    assert.ok(!JSON.stringify(response.body).includes(outsiderEmail), 'no e-mail of another organization');
  };
  /** 8 identical requests at once: none may fail with a server error. */
  const eightAtOnce = async (send: () => Promise<ApiResponse>, success: number) => {
    const answers = await Promise.all(Array.from({ length: 8 }, send));
    for (const answer of answers) assert.ok(answer.status === success || answer.status === 409, `${answer.status} ${JSON.stringify(answer.body)}`);
    assert.ok(answers.some((answer) => answer.status === success));
    return answers;
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const organization = await stack.organization({ domain: 'grants.test', roles: ['edit', 'review', 'read'] });
    ({ admin, outsider } = organization);
    orgId = organization.id;
    ({ edit: editor, review: reviewer, read: reader } = organization.members);
    outsiderEmail = ok(await outsider.api.get('/v1/user')).email;
    assert.ok(outsiderEmail);
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
  });

  it("grants a space or a collection only to members: another organization's user is refused like an unknown id", async () => {
    const space = await newSpace('Members only');
    const collection = ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Members only' }), 201);
    for (const base of [`/v1/spaces/${space.id}/permissions`, `/v1/collections/${collection.id}/permissions`]) {
      notMember(await admin.api.post(base, { role: 'read', users: [outsider.userId] }), 'users', outsider.userId);
      notMember(await admin.api.post(base, { role: 'read', users: ['no-such-user'] }), 'users', 'no-such-user');
      // All or nothing: the member named with them is not granted either.
      notMember(await admin.api.post(base, { role: 'admin', users: [reader.userId, outsider.userId] }), 'users', outsider.userId);
      const none = ok(await admin.api.get(`${base}/users`));
      assert.equal(none.count, 0);

      ok(await admin.api.post(base, { role: 'comment', users: [reader.userId] }), 204);
      const listed = ok(await admin.api.get(`${base}/users`));
      assert.deepEqual(
        listed.items.map((item: any) => [item.user.id, item.permission]),
        [[reader.userId, 'comment']],
      );
      assert.ok(!JSON.stringify(listed).includes(outsiderEmail));
    }
    // The outsider gained nothing.
    assertError(await outsider.api.get(`/v1/spaces/${space.id}`), 404);
  });

  it("grants only the organization's own teams", async () => {
    const space = await newSpace('Teams only');
    const base = `/v1/spaces/${space.id}/permissions`;
    const foreign = await outsider.api.put(`/v1/orgs/${outsider.organizationId}/teams`, { title: 'Elsewhere' });
    assert.ok(foreign.status < 300, JSON.stringify(foreign.body));
    const own = await admin.api.put(`/v1/orgs/${orgId}/teams`, { title: 'Writers', members: [editor.userId] });
    assert.ok(own.status < 300, JSON.stringify(own.body));

    notMember(await admin.api.post(base, { role: 'edit', teams: [foreign.body.id] }), 'teams', foreign.body.id);
    notMember(await admin.api.post(base, { role: 'edit', teams: ['no-such-team'] }), 'teams', 'no-such-team');
    notMember(await admin.api.post(base, { role: 'edit', users: [reader.userId], teams: [foreign.body.id] }), 'teams', foreign.body.id);
    assert.equal(ok(await admin.api.get(`${base}/teams`)).count, 0);
    assert.equal(ok(await admin.api.get(`${base}/users`)).count, 0, 'nothing of a refused invitation is applied');

    ok(await admin.api.post(base, { role: 'edit', teams: [own.body.id] }), 204);
    assert.deepEqual(
      ok(await admin.api.get(`${base}/teams`)).items.map((item: any) => [item.team.id, item.permission]),
      [[own.body.id, 'edit']],
    );
  });

  it("changes and removes one user's or one team's role on a space or a collection (PATCH/DELETE …/permissions/users|teams/{id})", async () => {
    const team = ok(await admin.api.put(`/v1/orgs/${orgId}/teams`, { title: 'Entry editors', members: [reviewer.userId] }), 201);
    for (const kind of ['spaces', 'collections'] as const) {
      // Guest level, so the grants alone decide who sees it.
      const resource = ok(await admin.api.post(`/v1/orgs/${orgId}/${kind === 'spaces' ? 'spaces' : 'collections'}`, { title: `Entries ${kind}` }), 201);
      ok(await admin.api.patch(`/v1/${kind}/${resource.id}`, { defaultLevel: null }));
      const base = `/v1/${kind}/${resource.id}/permissions`;
      ok(await admin.api.post(base, { role: 'read', users: [reader.userId] }), 204);
      ok(await admin.api.post(base, { role: 'read', teams: [team.id] }), 204);
      const seenBy = async (account: TestAccount) => (await account.api.get(`/v1/${kind}/${resource.id}`)).status;
      assert.deepEqual([await seenBy(reader), await seenBy(reviewer)], [200, 200]);

      for (const [subject, id, account] of [
        ['users', reader.userId, reader],
        ['teams', team.id, reviewer],
      ] as const) {
        const entry = `${base}/${subject}/${id}`;
        const listed = async () =>
          ok(await admin.api.get(`${base}/${subject}`)).items.map((item: any) => [item[subject === 'users' ? 'user' : 'team'].id, item.permission]);

        // Rules first: only admins of the resource, a valid role, an existing entry, a visible resource.
        // The editor has no grant on this guest-level resource: it does not exist for them.
        assertError(await editor.api.patch(entry, { role: 'edit' }), 404);
        assertError(await account.api.patch(entry, { role: 'admin' }), 403);
        assertError(await admin.api.patch(entry, { role: 'owner' }), 400, 'role');
        assertError(await admin.api.patch(`${base}/${subject}/${subject === 'users' ? editor.userId : 'no-such-team'}`, { role: 'edit' }), 404);
        assertError(await outsider.api.patch(entry, { role: 'edit' }), 404);
        assertError(await admin.api.patch(`/v1/${kind}/no-such-resource/permissions/${subject}/${id}`, { role: 'edit' }), 404);
        assert.deepEqual(await listed(), [[id, 'read']], 'refused changes changed nothing');

        // The change takes effect in the very next request (spaces: edit; collections: create).
        const raised = kind === 'spaces' ? 'edit' : 'create';
        assert.equal(ok(await account.api.get(`/v1/${kind}/${resource.id}`)).permissions[raised], false);
        ok(await admin.api.patch(entry, { role: raised }), 204);
        assert.deepEqual(await listed(), [[id, raised]]);
        assert.equal(ok(await account.api.get(`/v1/${kind}/${resource.id}`)).permissions[raised], true);

        // DELETE: for an outsider the resource does not exist, so 204 like any missing thing,
        // and nothing is removed; a member who is no admin gets 403. Then gone, and again 204.
        ok(await outsider.api.delete(entry), 204);
        assertError(await account.api.delete(entry), 403);
        assert.deepEqual(await listed(), [[id, raised]]);
        ok(await admin.api.delete(entry), 204);
        assert.deepEqual(await listed(), []);
        assert.equal(await seenBy(account), 404, 'without its grant the guest-level resource is hidden again');
        ok(await admin.api.delete(entry), 204);
        ok(await admin.api.delete(`/v1/${kind}/no-such-resource/permissions/${subject}/${id}`), 204);
      }
    }
  });

  it("lists a space's or a collection's user and team grants to its admins only: 403 for other members, 404 for outsiders and unknown ids, 400 on a bad page", async () => {
    const space = await newSpace('Grant lists');
    const collection = ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Grant lists' }), 201);
    const team = ok(await admin.api.put(`/v1/orgs/${orgId}/teams`, { title: 'Listed team', members: [reviewer.userId] }), 201);
    for (const [kind, id] of [
      ['spaces', space.id],
      ['collections', collection.id],
    ]) {
      const base = `/v1/${kind}/${id}/permissions`;
      ok(await admin.api.post(base, { role: 'read', users: [reader.userId], teams: [team.id] }), 204);
      for (const subject of ['users', 'teams']) {
        const list = `${base}/${subject}`;
        // Members who see the resource but do not administer it: 403, naming what they may not do.
        assertError(await editor.api.get(list), 403, 'permissions');
        assertError(await reader.api.get(list), 403, 'permissions');
        // Another organization's admin learns nothing, not even that it exists.
        assertError(await outsider.api.get(list), 404);
        assertError(await admin.api.get(`/v1/${kind}/no-such-resource/permissions/${subject}`), 404);
        assertError(await admin.api.get(`${list}?limit=0`), 400, 'limit');
        assertError(await admin.api.get(`${list}?page=junk`), 400, 'page');

        const listed = ok(await admin.api.get(list));
        assert.deepEqual(
          listed.items.map((item: any) => [item[subject === 'users' ? 'user' : 'team'].id, item.permission]),
          [[subject === 'users' ? reader.userId : team.id, 'read']],
        );
        assert.equal(listed.count, 1);
      }
    }
  });

  it('requests reviews and names merge-rule reviewers only among members', async () => {
    const space = await newSpace('Reviews');
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Check me' }), 201);
    const requested = `/v1/spaces/${space.id}/change-requests/${cr.id}/requested-reviewers`;
    notMember(await editor.api.post(requested, { users: [outsider.userId] }), 'users', outsider.userId);
    notMember(await editor.api.post(requested, { users: ['no-such-user'] }), 'users', 'no-such-user');
    notMember(await editor.api.post(requested, { users: [reviewer.userId, outsider.userId] }), 'users', outsider.userId);
    const byRequested = async (userId: string) => ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?requestedReviewer=${userId}`)).count;
    assert.equal(await byRequested(outsider.userId), 0);
    assert.equal(await byRequested(reviewer.userId), 0, 'nothing of a refused request is applied');

    const answer = ok(await editor.api.post(requested, { users: [reviewer.userId] }));
    assert.deepEqual(
      answer.users.map((entry: any) => entry.user.id),
      [reviewer.userId],
    );
    assert.equal(await byRequested(reviewer.userId), 1);

    const rules = (users: string[]) => ({ mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users }] } });
    for (const id of [outsider.userId, 'no-such-user']) {
      const refused = await admin.api.patch(`/v1/spaces/${space.id}`, rules([reviewer.userId, id]));
      assertError(refused, 400, 'mergeRules');
      assert.match(refused.body.error.message, new RegExp(`: ${id} is not a member of this organization$`));
    }
    assert.deepEqual(ok(await reader.api.get(`/v1/spaces/${space.id}`)).mergeRules, { type: 'inherit' });
    assert.deepEqual(ok(await admin.api.patch(`/v1/spaces/${space.id}`, rules([reviewer.userId]))).mergeRules, rules([reviewer.userId]).mergeRules);
    // Turning rules off needs no membership check.
    assert.deepEqual(ok(await admin.api.patch(`/v1/spaces/${space.id}`, { mergeRules: { type: 'none' } })).mergeRules, { type: 'none' });
  });

  it('answers 8 identical grants, review requests and reviews sent at once without a 500, and keeps one of each', async () => {
    // Several rounds, each on a fresh resource: the race on the first insert is a matter of timing.
    const resources: string[] = [];
    for (let round = 0; round < 4; round += 1) {
      resources.push(`/v1/spaces/${(await newSpace(`Concurrent ${round}`)).id}`);
      resources.push(`/v1/collections/${ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: `Concurrent ${round}` }), 201).id}`);
    }
    for (const resource of resources) {
      await eightAtOnce(() => admin.api.post(`${resource}/permissions`, { role: 'edit', users: [reader.userId] }), 204);
      assert.deepEqual(
        ok(await admin.api.get(`${resource}/permissions/users`)).items.map((item: any) => [item.user.id, item.permission]),
        [[reader.userId, 'edit']],
      );
    }
    const space = { id: resources[0].split('/').pop() as string };

    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Busy' }), 201);
    const base = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    await eightAtOnce(() => editor.api.post(`${base}/requested-reviewers`, { users: [reviewer.userId] }), 200);
    const requested = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?requestedReviewer=${reviewer.userId}`));
    assert.deepEqual(
      requested.items.map((item: any) => item.id),
      [cr.id],
    );

    const reviews = await eightAtOnce(() => reviewer.api.post(`${base}/reviews`, { status: 'approved' }), 201);
    const listed = ok(await reader.api.get(`${base}/reviews`));
    assert.deepEqual(
      listed.items.map((item: any) => [item.reviewer.id, item.status, item.revision, item.outdated]),
      [[reviewer.userId, 'approved', cr.revision, false]],
    );
    for (const answer of reviews) if (answer.status === 201) assert.equal(answer.body.id, listed.items[0].id, 'the same review each time');
    // A different decision is a new review, and supersedes the first.
    ok(await reviewer.api.post(`${base}/reviews`, { status: 'changes-requested' }), 201);
    assert.deepEqual(
      ok(await reader.api.get(`${base}/reviews`)).items.map((item: any) => [item.status, item.outdated]),
      [
        ['changes-requested', false],
        ['approved', true],
      ],
    );
  });

  it('lists granted users only while they are members: a user who left shows nothing of theirs', async () => {
    const space = await newSpace('Leavers');
    const leaver = await stack.account(['add-member', '--org', orgId, '--email', 'leaver@grants.test', '--role', 'read']);
    ok(await admin.api.post(`/v1/spaces/${space.id}/permissions`, { role: 'edit', users: [leaver.userId, editor.userId] }), 204);
    assert.deepEqual(
      ok(await admin.api.get(`/v1/spaces/${space.id}/permissions/users`))
        .items.map((item: any) => item.user.id)
        .sort(),
      [leaver.userId, editor.userId].sort(),
    );
    ok(await admin.api.delete(`/v1/orgs/${orgId}/members/${leaver.userId}`), 204);
    const listed = ok(await admin.api.get(`/v1/spaces/${space.id}/permissions/users`));
    assert.deepEqual(
      listed.items.map((item: any) => item.user.id),
      [editor.userId],
    );
    assert.ok(!JSON.stringify(listed).includes('leaver@grants.test'), 'no e-mail of a non-member');
  });
});
