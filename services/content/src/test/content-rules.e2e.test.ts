import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { assertMatchesOpenApi, sharedTestStack, type TestAccount, type TestStack, expectError as assertError, expectOk as ok } from '@quire/testkit';

/**
 * The issue's rules one by one, through the gateway: the GitBook form of content batches,
 * `outdated`, the space counters, duplicate, sibling order, 403 vs 404, list filters and
 * keyset pages on every list.
 */
describe('content: rules of spaces, change requests and content (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount & { organizationId: string };

  const account = (args: string[]) => stack.account(args);
  const newSpace = async (title: string, body: Record<string, unknown> = {}) => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title, ...body }), 201);
  const newChangeRequest = async (spaceId: string, subject: string, body: Record<string, unknown> = {}) =>
    ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject, ...body }), 201);
  const write = async (spaceId: string, cr: string, changes: unknown[]) =>
    ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content?compat=false`, { changes }));
  const merge = (spaceId: string, cr: string) => admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`);
  const getCr = async (spaceId: string, cr: string) => ok(await reader.api.get(`/v1/spaces/${spaceId}/change-requests/${cr}`));
  const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
  const ids = (body: { items: Array<{ id: string }> }) => body.items.map((item) => item.id);

  beforeAll(async () => {
    stack = await sharedTestStack();
    admin = await account(['bootstrap', '--email', 'ada@acme.test', '--org', 'Acme']);
    orgId = (admin as unknown as { organizationId: string }).organizationId;
    editor = await account(['add-member', '--org', orgId, '--email', 'ed@acme.test', '--role', 'edit']);
    reader = await account(['add-member', '--org', orgId, '--email', 'rita@acme.test', '--role', 'read']);
    guest = await account(['add-member', '--org', orgId, '--email', 'gus@elsewhere.test', '--role', 'guest']);
    outsider = (await account(['bootstrap', '--email', 'eve@other.test', '--org', 'Other'])) as TestAccount & { organizationId: string };
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
  });

  it('takes content batches in the GitBook form through the official client: ChangeRequest, or ChangeRequestContentUpdate with compat=false', async () => {
    const client: any = new GitBookAPI({ authToken: editor.token, endpoint: stack.baseUrl });
    const space = await newSpace('GitBook form');
    const cr = await newChangeRequest(space.id, 'Batch');
    const bytes = Buffer.from('hello file');
    const update = await client.spaces.updateChangeRequestContent(
      space.id,
      cr.id,
      {
        changes: [
          { operation: 'insert_page', ref: 'guide', document: { markdown: '# Guide\n\nHello' } },
          { operation: 'insert_page', title: 'Setup', into: 'guide', document: { markdown: 'Install.' } },
          { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: bytes.toString('base64') }] },
        ],
      },
      { compat: false },
    );
    assertMatchesOpenApi('ChangeRequestContentUpdate', update.data);
    const [guide, setup] = update.data.changes;
    assert.equal(guide.object, 'created_page');
    assert.equal(guide.ref, 'guide');
    assert.equal(setup.ref, undefined);
    assert.equal(update.data.changeRequest.id, cr.id);
    assert.notEqual(update.data.changeRequest.revision, cr.revision);
    const page = ok(await reader.api.get(guide.page.urls.location.slice(stack.baseUrl.length)));
    assert.equal(page.title, 'Guide', 'the title comes from the leading heading');
    assert.equal(page.pages[0].id, setup.page.id, 'into names a page inserted earlier in the batch by its ref');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/path/guide/setup`)).markdown, 'Install.');
    const file = update.data.insertedFiles[0];
    assert.equal(file.name, 'notes.txt');
    assert.deepEqual(Buffer.from(await (await fetch(file.downloadURL)).arrayBuffer()), bytes);

    // Default (compat=true): the ChangeRequest. Net outcomes: an inserted then deleted page is no change.
    const plain = await client.spaces.updateChangeRequestContent(space.id, cr.id, {
      changes: [{ operation: 'update_page', page: guide.page.id, document: { markdown: '# Guide\n\nHello again' } }],
    });
    assertMatchesOpenApi('ChangeRequest', plain.data);
    assert.equal(plain.data.object, 'change-request');
    assert.equal(ok(await reader.api.get(guide.page.urls.location.slice(stack.baseUrl.length))).markdown, '# Guide\n\nHello again');
    const net = await write(space.id, cr.id, [
      { operation: 'insert_page', ref: 'tmp', title: 'Tmp', document: {} },
      { operation: 'update_page', page: 'tmp', title: 'Tmp 2' },
      { operation: 'update_page', page: guide.page.id, title: 'Guide v2' },
      { operation: 'delete_page', page: 'tmp' },
      { operation: 'delete_page', page: setup.page.id },
    ]);
    assert.deepEqual(
      net.changes.map((change: any) => [change.object, typeof change.page === 'string' ? change.page : change.page.id]),
      [
        ['updated_page', guide.page.id],
        ['deleted_page', setup.page.id],
      ],
    );

    const base = `/v1/spaces/${space.id}/change-requests/${cr.id}/content`;
    const before = (await getCr(space.id, cr.id)).revision;
    assertError(
      await editor.api.post(base, { changes: [{ operation: 'insert_page', document: { document: { object: 'document', nodes: [] } } }] }),
      400,
      'changes.0',
    );
    assertError(
      await editor.api.post(base, { changes: [{ operation: 'insert_files', files: [{ name: 'x.png', url: 'https://example.org/x.png' }] }] }),
      400,
      'changes.0.files.0',
    );
    assertError(await editor.api.post(base, { changes: [{ operation: 'revert_page', page: guide.page.id }] }), 400, 'changes.0');
    assertError(
      await editor.api.post(base, {
        changes: [
          { operation: 'insert_page', ref: 'a', title: 'A' },
          { operation: 'insert_page', ref: 'a', title: 'B' },
        ],
      }),
      400,
      'changes.1.ref',
    );
    assertError(await editor.api.post(`${base}?compat=maybe`, { changes: [{ operation: 'delete_page', page: guide.page.id }] }), 400, 'compat');
    assert.equal((await getCr(space.id, cr.id)).revision, before, 'rejected batches write nothing');
  });

  it('says outdated exactly when main moved on since the base; a merged change request is never outdated', async () => {
    const space = await newSpace('Outdated');
    const a = await newChangeRequest(space.id, 'A');
    const b = await newChangeRequest(space.id, 'B');
    await write(space.id, a.id, [{ type: 'insert_page', title: 'From A' }]);
    await write(space.id, b.id, [{ type: 'insert_page', title: 'From B' }]);
    assert.deepEqual(
      [(await getCr(space.id, a.id)).outdated, (await getCr(space.id, b.id)).outdated],
      [false, false],
      'writing to a change request is not main moving',
    );
    ok(await merge(space.id, a.id));
    const mergedA = await getCr(space.id, a.id);
    assert.equal(mergedA.status, 'merged');
    assert.equal(mergedA.outdated, false, 'its own merge does not make it outdated');
    assert.equal((await getCr(space.id, b.id)).outdated, true);
    const listed = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?status=merged`));
    assert.equal(listed.items[0].outdated, false);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests`)).items[0].outdated, true);
    const updated = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${b.id}/update`));
    assert.deepEqual(updated, { revision: updated.revision, result: 'update' });
    assert.equal((await getCr(space.id, b.id)).outdated, false);
    const again = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${b.id}/update`));
    assert.equal(again.revision, updated.revision, 'nothing to pull: the same revision');
    const c = await newChangeRequest(space.id, 'C');
    ok(await merge(space.id, b.id));
    assert.deepEqual(
      [(await getCr(space.id, a.id)).outdated, (await getCr(space.id, b.id)).outdated, (await getCr(space.id, c.id)).outdated],
      [false, false, true],
    );
    assert.deepEqual(
      flat(ok(await reader.api.get(`/v1/spaces/${space.id}/content`)).pages)
        .map((p) => p.title)
        .sort(),
      ['From A', 'From B'],
    );
  });

  it('keeps the space counters equal to the lists through creation, status changes, merges, archiving and a conflict', async () => {
    const space = await newSpace('Counters');
    const countersMatchLists = async () => {
      const counts: Record<string, number> = {};
      for (const status of ['open', 'draft', 'archived', 'merged']) {
        counts[status] = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?status=${status}&limit=1`)).count;
      }
      const now = ok(await reader.api.get(`/v1/spaces/${space.id}`));
      assert.deepEqual(
        [now.changeRequests, now.changeRequestsOpen, now.changeRequestsDraft],
        [counts.open + counts.draft + counts.archived + counts.merged, counts.open, counts.draft],
      );
      return counts;
    };
    const [one, two] = [await newChangeRequest(space.id, 'one'), await newChangeRequest(space.id, 'two')];
    const draft = await newChangeRequest(space.id, 'draft', { status: 'draft' });
    assert.deepEqual(await countersMatchLists(), { open: 2, draft: 1, archived: 0, merged: 0 });
    const patch = (cr: string, status: string) => editor.api.patch(`/v1/spaces/${space.id}/change-requests/${cr}`, { status });
    ok(await patch(draft.id, 'open'));
    ok(await patch(one.id, 'draft'));
    assert.deepEqual(await countersMatchLists(), { open: 2, draft: 1, archived: 0, merged: 0 });
    ok(await patch(two.id, 'archived'));
    assert.deepEqual(await countersMatchLists(), { open: 1, draft: 1, archived: 1, merged: 0 });
    await write(space.id, one.id, [{ type: 'insert_page', title: 'Shared', markdown: 'line' }]);
    ok(await merge(space.id, one.id)); // a draft can be merged
    assert.deepEqual(await countersMatchLists(), { open: 1, draft: 0, archived: 1, merged: 1 });
    // Concurrent status moves of different change requests of one space all count.
    const more = await Promise.all([1, 2, 3, 4].map((i) => newChangeRequest(space.id, `more ${i}`)));
    // Numbers are handed out atomically: concurrent creations get distinct, consecutive ones.
    assert.deepEqual(
      more.map((cr) => cr.number).sort((x, y) => x - y),
      [4, 5, 6, 7],
    );
    await Promise.all([...more.map((cr, i) => patch(cr.id, i % 2 ? 'draft' : 'archived')), patch(two.id, 'open')]).then((all) => all.forEach((r) => ok(r)));
    assert.deepEqual(await countersMatchLists(), { open: 2, draft: 2, archived: 2, merged: 1 });

    // A real conflict is a 409 that changes nothing: content, revisions, statuses, counters.
    const page = flat(ok(await reader.api.get(`/v1/spaces/${space.id}/content`)).pages)[0];
    const [x, y] = [await newChangeRequest(space.id, 'x'), await newChangeRequest(space.id, 'y')];
    await write(space.id, x.id, [{ type: 'update_page', page: page.id, markdown: 'x' }]);
    await write(space.id, y.id, [{ type: 'update_page', page: page.id, markdown: 'y' }]);
    ok(await merge(space.id, x.id));
    const [spaceBefore, yBefore, countsBefore] = [ok(await reader.api.get(`/v1/spaces/${space.id}`)), await getCr(space.id, y.id), await countersMatchLists()];
    const conflict = await merge(space.id, y.id);
    assertError(conflict, 409, `"Shared" (${page.id})`);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}`)).revision, spaceBefore.revision);
    assert.deepEqual(await getCr(space.id, y.id), yBefore);
    assert.deepEqual(await countersMatchLists(), countsBefore);
    assert.equal(flat(ok(await reader.api.get(`/v1/spaces/${space.id}/content`)).pages)[0].markdown, 'x');
  });

  it('duplicates a space with a copy of its current content that then lives on its own', async () => {
    const space = await newSpace('Source', { emoji: '📗' });
    const cr = await newChangeRequest(space.id, 'seed');
    const seeded = await write(space.id, cr.id, [
      { type: 'insert_page', ref: 'intro', title: 'Intro', markdown: 'Welcome' },
      { type: 'insert_page', title: 'Child', markdown: 'Nested', into: 'intro' },
      { type: 'insert_files', files: [{ name: 'a.bin', contentType: 'application/octet-stream', data: Buffer.from([1, 2, 3]).toString('base64') }] },
    ]);
    const intro = seeded.changes[0].page.id;
    ok(await merge(space.id, cr.id));
    const original = ok(await reader.api.get(`/v1/spaces/${space.id}/content`));

    const copy = ok(await admin.api.post(`/v1/spaces/${space.id}/duplicate`), 201);
    assert.equal(copy.changeRequests, 0);
    const copied = ok(await reader.api.get(`/v1/spaces/${copy.id}/content`));
    const shape = (revision: any) => flat(revision.pages).map((p: any) => [p.path, p.title, p.markdown]);
    assert.deepEqual(shape(copied), shape(original));
    assert.deepEqual(shape(copied), [
      ['intro', 'Intro', 'Welcome'],
      ['intro/child', 'Child', 'Nested'],
    ]);
    assert.deepEqual(
      copied.files.map((f: any) => [f.name, f.size]),
      [['a.bin', 3]],
    );
    assert.deepEqual([...Buffer.from(await (await fetch(copied.files[0].downloadURL)).arrayBuffer())], [1, 2, 3]);

    const edit = await newChangeRequest(copy.id, 'edit the copy');
    await write(copy.id, edit.id, [{ type: 'update_page', page: intro, markdown: 'Copy only' }]);
    ok(await merge(copy.id, edit.id));
    assert.deepEqual(shape(ok(await reader.api.get(`/v1/spaces/${space.id}/content`))), shape(original), 'the original is untouched');
  });

  it('moves spaces before and after siblings, in and across collections, and lists them in that order', async () => {
    const shelf = ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Shelf' }), 201);
    const other = ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Other shelf' }), 201);
    const [s1, s2, s3] = [await newSpace('S1', { parent: shelf.id }), await newSpace('S2', { parent: shelf.id }), await newSpace('S3', { parent: shelf.id })];
    const t1 = await newSpace('T1', { parent: other.id });
    const order = async (collection: string) => ids(ok(await reader.api.get(`/v1/collections/${collection}/spaces`)));
    const move = async (space: string, body: unknown) => ok(await admin.api.post(`/v1/spaces/${space}/move`, body));
    assert.deepEqual(await order(shelf.id), [s1.id, s2.id, s3.id]);
    await move(s3.id, { position: { after: { type: 'space', space: s1.id } } });
    assert.deepEqual(await order(shelf.id), [s1.id, s3.id, s2.id]);
    await move(s1.id, { position: { after: { type: 'space', space: s2.id } } });
    assert.deepEqual(await order(shelf.id), [s3.id, s2.id, s1.id]);
    await move(s2.id, { position: { before: { type: 'space', space: s3.id } } });
    assert.deepEqual(await order(shelf.id), [s2.id, s3.id, s1.id]);
    // A position next to a space of another collection moves it there.
    const across = await move(s3.id, { position: { before: { type: 'space', space: t1.id } } });
    assert.equal(across.parent, other.id);
    assert.deepEqual(await order(other.id), [s3.id, t1.id]);
    assert.deepEqual(await order(shelf.id), [s2.id, s1.id]);
    await move(s1.id, { parent: other.id, position: { after: { type: 'space', space: s3.id } } });
    assert.deepEqual(await order(other.id), [s3.id, s1.id, t1.id]);
    assertError(await admin.api.post(`/v1/spaces/${s2.id}/move`, { parent: shelf.id, position: { after: { type: 'space', space: t1.id } } }), 400, 'position');
  });

  it('hides change requests and content from other organizations and uninvited guests (404); visible but not allowed is 403', async () => {
    const space = await newSpace('Private matters');
    const cr = await newChangeRequest(space.id, 'Secret');
    const written = await write(space.id, cr.id, [
      { type: 'insert_files', files: [{ name: 'f.txt', contentType: 'text/plain', data: Buffer.from('f').toString('base64') }] },
      { type: 'insert_page', title: 'Page', markdown: 'text' },
    ]);
    const fileId = written.insertedFiles[0].id;
    const pageId = written.changes[0].page.id;
    ok(await merge(space.id, cr.id));
    const open = await newChangeRequest(space.id, 'Still open');
    const spaceRevision = ok(await admin.api.get(`/v1/spaces/${space.id}`)).revision;
    const s = `/v1/spaces/${space.id}`;
    const c = `${s}/change-requests/${open.id}`;
    const reads = [
      s,
      `${s}/links`,
      `${s}/content`,
      `${s}/content/pages`,
      `${s}/content/files`,
      `${s}/content/files/${fileId}`,
      `${s}/content/files/${fileId}/backlinks`,
      `${s}/content/page/${pageId}`,
      `${s}/content/page/${pageId}/links`,
      `${s}/content/page/${pageId}/backlinks`,
      `${s}/content/path/page`,
      `${s}/revisions/${spaceRevision}`,
      `${s}/change-requests`,
      c,
      `${c}/content`,
      `${c}/content/pages`,
      `${c}/content/files`,
      `${c}/content/files/${fileId}`,
      `${c}/content/files/${fileId}/backlinks`,
      `${c}/content/page/${pageId}`,
      `${c}/content/page/${pageId}/links`,
      `${c}/content/page/${pageId}/backlinks`,
      `${c}/pdf`,
      `${s}/change-requests/${open.number}`,
    ];
    for (const path of reads) {
      const read = await reader.api.get(path);
      assert.equal(read.status, 200, `${path}: ${JSON.stringify(read.body)}`);
      assertError(await outsider.api.get(path), 404);
      assertError(await guest.api.get(path), 404);
    }
    const writes: Array<[string, string, unknown]> = [
      ['POST', `${s}/change-requests`, { subject: 'no' }],
      ['PATCH', c, { subject: 'no' }],
      ['POST', `${c}/content`, { changes: [{ type: 'insert_page', title: 'no' }] }],
      ['POST', `${c}/merge`, undefined],
      ['POST', `${c}/update`, undefined],
    ];
    for (const [method, path, body] of writes) {
      assertError(await reader.api.request(method, path, { body }), 403);
      assertError(await outsider.api.request(method, path, { body }), 404);
    }
    // A change request is only found under its own space.
    const elsewhere = await newSpace('Elsewhere');
    assertError(await reader.api.get(`/v1/spaces/${elsewhere.id}/change-requests/${open.id}`), 404);
    assertError(await reader.api.get(`/v1/spaces/${elsewhere.id}/change-requests/${open.id}/content`), 404);
    assertError(await outsider.api.get(`/v1/orgs/${orgId}/change-requests`), 404);
    assert.equal(ok(await guest.api.get(`/v1/orgs/${orgId}/change-requests`)).count, 0);
    assert.ok(!ids(ok(await outsider.api.get(`/v1/orgs/${outsider.organizationId}/change-requests?limit=1000`))).includes(open.id));
  });

  it('filters change requests in the space and organization lists (statuses, space, creator, contributor, reviewer, order)', async () => {
    const space = await newSpace('Filters');
    const mine = ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'by admin' }), 201);
    const theirs = await newChangeRequest(space.id, 'by editor', { status: 'draft' });
    await write(space.id, mine.id, [{ type: 'insert_page', title: 'Edited by the editor' }]);
    ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${theirs.id}/requested-reviewers`, { users: [admin.userId] }));
    const list = async (query: string, base = `/v1/spaces/${space.id}/change-requests`) => ids(ok(await reader.api.get(`${base}?${query}`)));
    assert.deepEqual(await list(''), [mine.id]);
    assert.deepEqual(await list(`creator=${editor.userId}&status=draft`), [theirs.id]);
    assert.deepEqual(await list(`contributor=${editor.userId}`), [mine.id]);
    assert.deepEqual(await list(`requestedReviewer=${admin.userId}&status=draft`), [theirs.id]);
    assert.deepEqual(await list('conversationsIssuesCluster=none'), []);
    const org = `/v1/orgs/${orgId}/change-requests`;
    assert.deepEqual(await list(`space=${space.id}`, org), [mine.id]);
    // updatedAt (the default) puts the one written last first; createdAt the one created last.
    assert.deepEqual(await list(`space=${space.id}&status=open&status=draft`, org), [theirs.id, mine.id]);
    ok(await editor.api.patch(`/v1/spaces/${space.id}/change-requests/${mine.id}`, { subject: 'touched' }));
    assert.deepEqual(await list(`space=${space.id}&status=open&status=draft`, org), [mine.id, theirs.id]);
    assert.deepEqual(await list(`space=${space.id}&status=open&status=draft&orderBy=createdAt`, org), [theirs.id, mine.id]);
    assert.deepEqual(await list(`space=${space.id}&creator=${admin.userId}&status=draft`, org), []);
    assertError(await reader.api.get(`${org}?status=open&status=bogus`), 400, 'status');
    assertError(await reader.api.get(`${org}?orderBy=title`), 400, 'orderBy');
    const client: any = new GitBookAPI({ authToken: reader.token, endpoint: stack.baseUrl });
    const viaClient = await client.orgs.listChangeRequestsForOrganization(orgId, { status: ['open', 'draft'], space: space.id });
    assert.deepEqual(ids(viaClient.data), [mine.id, theirs.id]);
  });

  it('pages through every list with a small limit, keyset cursors and a constant count', async () => {
    const collection = ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Paged' }), 201);
    ok(await admin.api.post(`/v1/orgs/${orgId}/collections`, { title: 'Paged child', parent: collection.id }), 201);
    const space = await newSpace('Paged space', { parent: collection.id });
    await newSpace('Paged sibling', { parent: collection.id });
    const seed = await newChangeRequest(space.id, 'seed');
    const files = Array.from({ length: 3 }, (_, i) => ({ name: `f${i}.txt`, contentType: 'text/plain', data: Buffer.from(`f${i}`).toString('base64') }));
    const seeded = await write(space.id, seed.id, [
      { type: 'insert_files', files },
      { type: 'insert_page', title: 'Target' },
    ]);
    const target = seeded.changes[0].page.id;
    const file = seeded.insertedFiles[0].id;
    const linking = Array.from({ length: 3 }, (_, i) => ({
      type: 'insert_page',
      title: `Links ${i}`,
      markdown: `[t](/pages/${target}) [f](/files/${file}) [gone ${i}](gone-${i}.md) [web](https://example.org/${i})`,
    }));
    const linked = await write(space.id, seed.id, linking);
    const source = linked.changes[0].page.id;
    ok(await merge(space.id, seed.id));
    const cr = await newChangeRequest(space.id, 'open one');
    await newChangeRequest(space.id, 'open two');
    await newChangeRequest(space.id, 'a draft', { status: 'draft' });
    const s = `/v1/spaces/${space.id}`;
    const c = `${s}/change-requests/${cr.id}`;
    const lists = [
      `/v1/orgs/${orgId}/spaces`,
      `/v1/orgs/${orgId}/collections`,
      `/v1/collections/${collection.id}/spaces`,
      `${s}/change-requests`,
      `/v1/orgs/${orgId}/change-requests?status=open&status=draft`,
      `${s}/links`,
      `${s}/links?status=broken`,
      `${s}/content/files`,
      `${s}/content/files/${file}/backlinks`,
      `${s}/content/page/${target}/backlinks`,
      `${s}/content/page/${source}/links`,
      `${c}/content/files`,
      `${c}/content/files/${file}/backlinks`,
      `${c}/content/page/${target}/backlinks`,
      `${c}/content/page/${source}/links`,
    ];
    const key = (item: any) => item.id ?? JSON.stringify(item);
    for (const path of lists) {
      const join = path.includes('?') ? '&' : '?';
      const all = ok(await reader.api.get(`${path}${join}limit=1000`));
      assert.ok(all.items.length >= 2, `${path}: ${all.items.length} items`);
      assert.equal(all.count, all.items.length, path);
      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const res = ok(await reader.api.get(`${path}${join}limit=1${page ? `&page=${encodeURIComponent(page)}` : ''}`));
        assert.equal(res.count, all.count, path);
        assert.ok(res.items.length <= 1, path);
        seen.push(...res.items.map(key));
        page = res.next?.page;
        pages += 1;
      } while (page && pages < 100);
      assert.deepEqual(seen, all.items.map(key), path);
    }
    const links = ok(await reader.api.get(`${s}/links`));
    assert.deepEqual(links.stats, { total: 2 + 3 + 3, broken: { total: 3, changeRequest: 0 } });
    assertError(await reader.api.get(`${s}/change-requests?page=garbage`), 400, 'page');
    assertError(await reader.api.get(`${s}/content/files?page=garbage`), 400, 'page');
  });
});
