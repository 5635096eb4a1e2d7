import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createEventBus, EVENTS, type EventBus, type EventOf } from '@quire/async';
import { createLogger } from '@quire/runtime';
import { pdfText } from './pdf-text';
import { assertMatchesOpenApi, sharedTestStack, waitFor, type TestAccount, type TestStack, expectError as assertError, expectOk as ok } from '@quire/testkit';

/** Revisions, change requests, content batches, merge/update, links and PDF through the gateway. */
describe('content: change requests and revisions (end to end)', () => {
  let stack: TestStack;
  let events: EventBus;
  const MERGE_EVENTS = [EVENTS.changeRequestMerged, EVENTS.spaceContentUpdated] as const;
  const seen: Array<EventOf<(typeof MERGE_EVENTS)[number]>> = [];
  let orgId: string;
  let admin: TestAccount;
  let reviewer: TestAccount;
  let editor: TestAccount;
  let reader: TestAccount;
  let outsider: TestAccount;

  const account = (args: string[]) => stack.account(args);
  const newSpace = async (title: string) => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201);
  const newChangeRequest = async (spaceId: string, subject: string, api = editor.api) =>
    ok(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject }), 201);
  /** A content batch; the answer is OpenAPI ChangeRequestContentUpdate (compat=false). */
  const write = async (spaceId: string, cr: string, changes: unknown[], api = editor.api) =>
    ok(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content?compat=false`, { changes }));
  const merge = (spaceId: string, cr: string, api = admin.api) => api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`);
  const spaceContent = async (spaceId: string) => ok(await reader.api.get(`/v1/spaces/${spaceId}/content`));
  const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
  /** A space whose content holds the given pages, merged through a change request. */
  const seededSpace = async (title: string, pages: Array<{ title: string; markdown?: string }>) => {
    const space = await newSpace(title);
    const cr = await newChangeRequest(space.id, 'seed');
    await write(
      space.id,
      cr.id,
      pages.map((page) => ({ type: 'insert_page', ...page })),
    );
    ok(await merge(space.id, cr.id));
    const content = await spaceContent(space.id);
    return { space, pages: flat(content.pages) };
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    admin = await account(['bootstrap', '--email', 'ada@acme.test', '--org', 'Acme']);
    orgId = (admin as { organizationId?: string }).organizationId as string;
    reviewer = await account(['add-member', '--org', orgId, '--email', 'rev@acme.test', '--role', 'review']);
    editor = await account(['add-member', '--org', orgId, '--email', 'ed@acme.test', '--role', 'edit']);
    reader = await account(['add-member', '--org', orgId, '--email', 'rita@acme.test', '--role', 'read']);
    outsider = await account(['bootstrap', '--email', 'eve@other.test', '--org', 'Other']);
    events = createEventBus({ redisUrl: stack.env.redisUrl, prefix: stack.env.redisPrefix, logger: createLogger('test', 'silent') });
    await events.subscribe('content-change-requests-e2e-test', MERGE_EVENTS, async (event) => void seen.push(event), { blockMs: 200 });
  });

  afterAll(async () => {
    // Debugging aid: the stack's own log when asked for.
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await events?.close();
    await stack?.stop();
  });

  it('creates, reads, lists, filters and patches change requests, keeping the space counters true', async () => {
    const space = await newSpace('Requests');
    const first = await newChangeRequest(space.id, 'First change');
    assertMatchesOpenApi('ChangeRequest', first);
    assert.equal(first.object, 'change-request');
    assert.equal(first.number, 1);
    assert.equal(first.status, 'open');
    assert.equal(first.createdBy.id, editor.userId);
    assert.equal(first.revisionInitial, space.revision);
    assert.equal(first.revision, space.revision);
    assert.equal(first.outdated, false);
    assert.equal(first.urls.location, `${stack.baseUrl}/v1/spaces/${space.id}/change-requests/${first.id}`);
    const draft = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Draft one', status: 'draft', extra: true }), 201);
    assert.equal(draft.number, 2);
    assert.deepEqual(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/2`)), draft);
    assert.deepEqual(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${first.id}`)), first);

    const open = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests`));
    assertMatchesOpenApi('List', open);
    assert.deepEqual(
      open.items.map((cr: any) => cr.id),
      [first.id],
    );
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?status=draft`)).items[0].id, draft.id);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?creator=${admin.userId}`)).count, 0);
    let counters = ok(await admin.api.get(`/v1/spaces/${space.id}`));
    assert.deepEqual([counters.changeRequests, counters.changeRequestsOpen, counters.changeRequestsDraft], [2, 1, 1]);

    const description = {
      object: 'document',
      data: { schemaVersion: 1 },
      nodes: [{ object: 'block', type: 'paragraph', key: 'a', isVoid: false, data: { align: 'start' }, nodes: [] }],
    };
    const patched = ok(await editor.api.patch(`/v1/spaces/${space.id}/change-requests/2`, { subject: 'Ready', status: 'open', description }));
    assert.equal(patched.subject, 'Ready');
    assert.equal(patched.status, 'open');
    assert.deepEqual(patched.description, description);
    counters = ok(await admin.api.get(`/v1/spaces/${space.id}`));
    assert.deepEqual([counters.changeRequests, counters.changeRequestsOpen, counters.changeRequestsDraft], [2, 2, 0]);
    ok(await editor.api.patch(`/v1/spaces/${space.id}/change-requests/2`, { status: 'archived' }));
    counters = ok(await admin.api.get(`/v1/spaces/${space.id}`));
    assert.deepEqual([counters.changeRequestsOpen, counters.changeRequestsDraft], [1, 0]);

    const url = `/v1/spaces/${space.id}/change-requests/${first.id}`;
    assertError(await editor.api.patch(url, { subject: 'x'.repeat(101) }), 400, 'subject');
    assertError(await editor.api.patch(url, { status: 'merged' }), 400, 'status');
    assertError(await editor.api.patch(url, { description: { object: 'document', data: {}, nodes: [{ object: 'block' }] } }), 400, 'description.nodes.0');
    // The document is `{object, data, nodes}` (spec Conventions): another top-level key is refused, named.
    const extraKey = await editor.api.patch(url, { description: { ...description, meta: { token: 't' } } });
    assertError(extraKey, 400, 'description');
    assert.match(extraKey.body.error.message, /meta/);
    // Without `schemaVersion` a document is of the latest version, which the answer names.
    const unversioned = ok(await editor.api.patch(url, { description: { object: 'document', data: {}, nodes: description.nodes } }));
    assert.deepEqual(unversioned.description, description);
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'y'.repeat(101) }), 400, 'subject');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests?status=bogus`), 400, 'status');
    assertError(await reader.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'no' }), 403);
    assertError(await reader.api.patch(url, { subject: 'no' }), 403);
    assertError(await outsider.api.get(url), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/999`), 404);

    await newChangeRequest((await newSpace('Elsewhere')).id, 'In another space');
    const orgList = ok(await reader.api.get(`/v1/orgs/${orgId}/change-requests?status=open&limit=1`));
    assert.equal(orgList.items.length, 1);
    assert.ok(orgList.next?.page);
    const nextPage = ok(await reader.api.get(`/v1/orgs/${orgId}/change-requests?status=open&limit=1&page=${orgList.next.page}`));
    assert.notEqual(nextPage.items[0]?.id, orgList.items[0].id);
    assertError(await outsider.api.get(`/v1/orgs/${orgId}/change-requests`), 404);
  });

  it('applies a batch of changes as one revision, atomically, and serves it back', async () => {
    const space = await newSpace('Batches');
    const cr = await newChangeRequest(space.id, 'Write');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
    const written = await write(space.id, cr.id, [
      { type: 'insert_page', title: 'Getting started', markdown: '# Hello\n\nSee [setup](guides/setup.md).' },
      { type: 'insert_page', title: 'Guides', slug: 'guides' },
      { type: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', data: png.toString('base64') }] },
    ]);
    assertMatchesOpenApi('ChangeRequestContentUpdate', written);
    const guides = written.changes[1].page.id;
    const fileId = written.insertedFiles[0].id;
    assert.equal(written.insertedFiles[0].name, 'logo.png');
    const second = await write(space.id, cr.id, [{ type: 'insert_page', title: 'Setup', into: guides, markdown: 'Install it.' }]);
    const fetched = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`));
    assert.equal(fetched.revision, second.changeRequest.revision);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?contributor=${editor.userId}`)).count, 1);

    const before = fetched.revision;
    assertError(
      await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
        changes: [
          { type: 'insert_page', title: 'ok' },
          { type: 'update_page', page: 'missing' },
        ],
      }),
      400,
      'changes.1.page',
    );
    assertError(
      await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { changes: [{ type: 'insert_page' }] }),
      400,
      'changes.0.title',
    );
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { changes: [] }), 400, 'changes');
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { changes: [{ type: 'explode' }] }), 400, 'changes.0.type');
    assertError(await reader.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { changes: [{ type: 'insert_page', title: 'x' }] }), 403);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).revision, before, 'a bad batch writes nothing');

    const revision = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`));
    assertMatchesOpenApi('Revision', revision);
    assert.equal(revision.id, before);
    assert.deepEqual(
      flat(revision.pages).map((page: any) => page.path),
      ['getting-started', 'guides', 'guides/setup'],
    );
    assert.equal(revision.pages[0].markdown, '# Hello\n\nSee [setup](guides/setup.md).');
    const pages = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/pages`));
    assert.equal(pages.pages.length, 2);
    const byPath = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/path/guides/setup`));
    assertMatchesOpenApi('RevisionPageDocument', byPath);
    assert.equal(byPath.markdown, 'Install it.');
    const asDocument = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${byPath.id}?format=document`));
    assert.equal(asDocument.document.object, 'document');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/nope`), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${byPath.id}?format=pdf`), 400, 'format');

    const files = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/files`));
    assert.equal(files.count, 1);
    const file = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/files/${fileId}`));
    assertMatchesOpenApi('RevisionFile', file);
    assert.equal(file.size, png.length);
    const download = await fetch(file.downloadURL);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), png);
    const forged = new URL(file.downloadURL);
    forged.searchParams.set('signature', 'A'.repeat(43));
    assert.equal((await fetch(forged)).status, 403);
    const stretched = new URL(file.downloadURL);
    stretched.searchParams.set('expires', String(Number(stretched.searchParams.get('expires')) + 3600));
    assert.equal((await fetch(stretched)).status, 403);

    // The space's own content is untouched until a merge.
    assert.deepEqual((await spaceContent(space.id)).pages, []);
    const spaceRevision = ok(await reader.api.get(`/v1/spaces/${space.id}/revisions/${space.revision}`));
    assertMatchesOpenApi('Revision', spaceRevision);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/revisions/${before}x`), 404);
    const other = await newSpace('Other');
    assertError(await reader.api.get(`/v1/spaces/${other.id}/revisions/${before}`), 404);
  });

  it("stores GitBook's page indexing flags: set by insert_page and update_page (both forms), kept by other edits, answered on every page read", async () => {
    const space = await newSpace('Indexing flags');
    const cr = await newChangeRequest(space.id, 'Flags');
    const contentUrl = `/v1/spaces/${space.id}/change-requests/${cr.id}/content`;
    const written = await write(space.id, cr.id, [
      { type: 'insert_page', title: 'Quiet', markdown: 'Not for search.', noIndex: true },
      { type: 'insert_page', title: 'Shy', markdown: 'Not for robots.', noRobotsIndex: true, noIndex: false },
      { type: 'insert_page', title: 'Plain', markdown: 'For everyone.' },
      // The GitBook form of a change takes them too.
      { operation: 'insert_page', document: { markdown: '# Both\n\nNeither.' }, noIndex: true, noRobotsIndex: true },
    ]);
    const [quiet, shy, plain, both] = written.changes.map((change: any) => change.page.id);
    const flagsOf = async (pageId: string) => {
      const page = ok(await reader.api.get(`${contentUrl}/page/${pageId}`));
      assertMatchesOpenApi('RevisionPageDocument', page);
      return [page.noIndex, page.noRobotsIndex];
    };
    assert.deepEqual(await Promise.all([quiet, shy, plain, both].map(flagsOf)), [
      [true, false],
      [false, true],
      [false, false],
      [true, true],
    ]);

    // Other edits keep them; update_page sets or clears the ones it names, and only those.
    await write(space.id, cr.id, [
      { type: 'update_page', page: quiet, title: 'Quieter', markdown: 'Still not for search.' },
      { type: 'update_page', page: shy, noRobotsIndex: false },
      { type: 'update_page', page: plain, noIndex: true },
      { operation: 'update_page', page: both, noIndex: false },
    ]);
    assert.deepEqual(await Promise.all([quiet, shy, plain, both].map(flagsOf)), [
      [true, false],
      [false, false],
      [true, false],
      [false, true],
    ]);

    // Booleans only: a 400 naming the field, nothing written.
    const before = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).revision;
    assertError(await editor.api.post(contentUrl, { changes: [{ type: 'insert_page', title: 'x', noIndex: 'yes' }] }), 400, 'changes.0.noIndex');
    assertError(
      await editor.api.post(contentUrl, {
        changes: [
          { type: 'update_page', page: quiet, title: 'ok' },
          { type: 'update_page', page: quiet, noRobotsIndex: 1 },
        ],
      }),
      400,
      'changes.1.noRobotsIndex',
    );
    assertError(await editor.api.post(contentUrl, { changes: [{ type: 'update_page', page: quiet, noIndex: null }] }), 400, 'changes.0.noIndex');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).revision, before, 'a bad batch writes nothing');

    // Merged: the space's content, its revision and the page reads by path answer them.
    ok(await merge(space.id, cr.id));
    const content = await spaceContent(space.id);
    assertMatchesOpenApi('Revision', content);
    assert.deepEqual(
      flat(content.pages).map((page) => [page.title, page.noIndex, page.noRobotsIndex]),
      [
        ['Quieter', true, false],
        ['Shy', false, false],
        ['Plain', true, false],
        ['Both', false, true],
      ],
    );
    const byPath = ok(await reader.api.get(`/v1/spaces/${space.id}/content/path/both`));
    assert.deepEqual([byPath.noIndex, byPath.noRobotsIndex], [false, true]);
    const revision = ok(await reader.api.get(`/v1/spaces/${space.id}/revisions/${content.id}`));
    assert.deepEqual(
      flat(revision.pages).map((page) => [page.noIndex, page.noRobotsIndex]),
      flat(content.pages).map((page) => [page.noIndex, page.noRobotsIndex]),
    );
    const pages = ok(await reader.api.get(`/v1/spaces/${space.id}/content/pages`));
    assert.deepEqual(
      flat(pages.pages).map((page) => [page.title, page.noIndex, page.noRobotsIndex]),
      flat(content.pages).map((page) => [page.title, page.noIndex, page.noRobotsIndex]),
    );
  });

  it('merges three-way, answers 409 on real conflicts without writing, and updates from the space', async () => {
    const { space, pages } = await seededSpace('Merging', [
      { title: 'Alpha', markdown: 'a1\na2\na3' },
      { title: 'Beta', markdown: 'b1\nb2' },
    ]);
    const [alpha, beta] = pages;
    const crX = await newChangeRequest(space.id, 'X edits alpha line 1');
    const crY = await newChangeRequest(space.id, 'Y edits alpha line 1 too');
    const crZ = await newChangeRequest(space.id, 'Z edits alpha line 3 and beta');
    await write(space.id, crX.id, [{ type: 'update_page', page: alpha.id, markdown: 'X1\na2\na3' }]);
    await write(space.id, crY.id, [{ type: 'update_page', page: alpha.id, markdown: 'Y1\na2\na3' }]);
    await write(space.id, crZ.id, [
      { type: 'update_page', page: alpha.id, markdown: 'a1\na2\nZ3' },
      { type: 'update_page', page: beta.id, title: 'Beta renamed' },
    ]);

    assertError(await merge(space.id, crX.id, editor.api), 403);
    const merged = ok(await merge(space.id, crX.id, reviewer.api));
    assert.equal(merged.result, 'merge');
    const afterX = ok(await admin.api.get(`/v1/spaces/${space.id}`));
    assert.equal(afterX.revision, merged.revision);
    const crXNow = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${crX.id}`));
    assert.equal(crXNow.status, 'merged');
    assert.equal(crXNow.revisionMerged, merged.revision);
    assert.equal(crXNow.mergedBy.id, reviewer.userId);
    assertMatchesOpenApi('ChangeRequest', crXNow);
    assertError(await merge(space.id, crX.id), 409);
    assertError(await editor.api.patch(`/v1/spaces/${space.id}/change-requests/${crX.id}`, { status: 'open' }), 400, 'status');

    const crYNow = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${crY.id}`));
    assert.equal(crYNow.outdated, true);
    const conflict = await merge(space.id, crY.id);
    assertError(conflict, 409);
    assert.match(conflict.body.error.message, new RegExp(`"Alpha" \\(${alpha.id}\\)`));
    assert.equal(ok(await admin.api.get(`/v1/spaces/${space.id}`)).revision, merged.revision, 'a conflict changes nothing');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${crY.id}`)).status, 'open');
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${crY.id}/update`), 409);

    const updated = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${crZ.id}/update`));
    assert.equal(updated.result, 'update');
    const crZNow = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${crZ.id}`));
    assert.equal(crZNow.revisionMergedAncestor, merged.revision);
    assert.equal(crZNow.outdated, false);
    assert.equal(crZNow.revision, updated.revision);
    const zAlpha = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${crZ.id}/content/page/${alpha.id}`));
    assert.equal(zAlpha.markdown, 'X1\na2\nZ3');
    ok(await merge(space.id, crZ.id));
    const final = flat((await spaceContent(space.id)).pages);
    assert.equal(final.find((page) => page.id === alpha.id).markdown, 'X1\na2\nZ3');
    assert.equal(final.find((page) => page.id === beta.id).title, 'Beta renamed');
    const counters = ok(await admin.api.get(`/v1/spaces/${space.id}`));
    assert.deepEqual([counters.changeRequests, counters.changeRequestsOpen], [4, 1]);

    // Both events of the first merge, each waited for (they travel on the stream independently).
    const mergedEvent = () => seen.find((e) => e.type === EVENTS.changeRequestMerged.type && e.payload.changeRequestId === crX.id);
    const contentEvent = () => seen.find((e) => e.type === EVENTS.spaceContentUpdated.type && e.payload.revisionId === merged.revision);
    await waitFor('the merge events of the first change request', async () => !!mergedEvent() && !!contentEvent(), 10_000);
    assert.deepEqual(mergedEvent()?.payload, { organizationId: orgId, spaceId: space.id, changeRequestId: crX.id, revisionId: merged.revision });
    assert.equal(contentEvent()?.payload.spaceId, space.id);
  });

  it('never loses either of two concurrent merges into one space', async () => {
    const { space, pages } = await seededSpace(
      'Concurrent',
      Array.from({ length: 6 }, (_, i) => ({ title: `Page ${i}`, markdown: `body ${i}` })),
    );
    for (let round = 0; round < 3; round++) {
      const one = await newChangeRequest(space.id, `one ${round}`);
      const two = await newChangeRequest(space.id, `two ${round}`);
      await write(space.id, one.id, [{ type: 'update_page', page: pages[round * 2].id, markdown: `one ${round}` }]);
      await write(space.id, two.id, [{ type: 'update_page', page: pages[round * 2 + 1].id, markdown: `two ${round}` }]);
      const results = await Promise.all([merge(space.id, one.id), merge(space.id, two.id)]);
      for (const result of results) ok(result);
      const content = flat((await spaceContent(space.id)).pages);
      assert.equal(content.find((page) => page.id === pages[round * 2].id).markdown, `one ${round}`);
      assert.equal(content.find((page) => page.id === pages[round * 2 + 1].id).markdown, `two ${round}`);
    }
  });

  it('enforces require_specific_reviewers from the space or, inherited, from the organization', async () => {
    const space = await newSpace('Reviewed');
    ok(
      await admin.api.patch(`/v1/spaces/${space.id}`, {
        mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewer.userId] }] },
      }),
    );
    const cr = await newChangeRequest(space.id, 'Needs review');
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'Reviewed page' }]);
    const refused = await merge(space.id, cr.id);
    assertError(refused, 403);
    assert.match(refused.body.error.message, new RegExp(reviewer.userId));
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`, { status: 'approved' }), 403);
    assertError(await reviewer.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`, { status: 'maybe' }), 400, 'status');
    ok(await reviewer.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`, { status: 'changes-requested' }), 201);
    assertError(await merge(space.id, cr.id), 403);
    const approval = ok(await reviewer.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`, { status: 'approved' }), 201);
    assertMatchesOpenApi('ChangeRequestReview', approval);
    const reviews = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`));
    assert.deepEqual(
      reviews.items.map((r: any) => [r.status, r.outdated]),
      [
        ['approved', false],
        ['changes-requested', true],
      ],
    );
    ok(await merge(space.id, cr.id));

    // Inherited: the organization's rules apply to a space left on 'inherit'.
    const inheriting = await newSpace('Inheriting');
    ok(
      await admin.api.patch(`/v1/orgs/${orgId}`, { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewer.userId] }] } }),
    );
    try {
      const request = await newChangeRequest(inheriting.id, 'Inherits rules');
      ok(await editor.api.post(`/v1/spaces/${inheriting.id}/change-requests/${request.id}/requested-reviewers`, { users: [reviewer.userId] }));
      assert.equal(ok(await reader.api.get(`/v1/spaces/${inheriting.id}/change-requests?requestedReviewer=${reviewer.userId}`)).count, 1);
      assertError(await merge(inheriting.id, request.id), 403);
      ok(await reviewer.api.post(`/v1/spaces/${inheriting.id}/change-requests/${request.id}/reviews`, { status: 'approved' }), 201);
      ok(await merge(inheriting.id, request.id));
    } finally {
      ok(await admin.api.patch(`/v1/orgs/${orgId}`, { mergeRules: { type: 'rules', rules: [] } }));
    }
  });

  it('refuses under requireNoNewBrokenLinks a change request adding a broken internal link, naming it; old ones do not count, and it is off by default', async () => {
    // Main already has a broken link: what a change request adds is what counts.
    const { space } = await seededSpace('Linked rules', [
      { title: 'Home', markdown: '[gone](missing.md)' },
      { title: 'Guide', markdown: 'Text.' },
    ]);
    const addBrokenLink = async (subject: string, spaceId = space.id) => {
      const cr = await newChangeRequest(spaceId, subject);
      await write(spaceId, cr.id, [{ type: 'insert_page', title: `Notes ${subject}`, markdown: '[fine](guide.md) [lost](nowhere.md)' }]);
      return cr;
    };
    // Off by default.
    ok(await merge(space.id, (await addBrokenLink('unruled')).id));

    const rules = { type: 'rules', rules: [], requireNoNewBrokenLinks: true };
    assertError(await admin.api.patch(`/v1/spaces/${space.id}`, { mergeRules: { ...rules, requireNoNewBrokenLinks: 'yes' } }), 400, 'mergeRules');
    assertError(await admin.api.patch(`/v1/spaces/${space.id}`, { mergeRules: { type: 'none', requireNoNewBrokenLinks: true } }), 400, 'mergeRules');
    const ruled = ok(await admin.api.patch(`/v1/spaces/${space.id}`, { mergeRules: rules }));
    assert.deepEqual(ruled.mergeRules, rules);
    assertMatchesOpenApi('Space', ruled);
    const cr = await addBrokenLink('ruled');
    const refused = await merge(space.id, cr.id);
    assertError(refused, 403);
    assert.match(refused.body.error.message, /no new broken links; this change request adds "nowhere\.md" on page "Notes ruled"$/);
    // A change request without a new broken link merges (the one main has is not its).
    const clean = await newChangeRequest(space.id, 'clean');
    await write(space.id, clean.id, [{ type: 'insert_page', title: 'Clean', markdown: '[guide](guide.md)' }]);
    ok(await merge(space.id, clean.id));
    // Fixed in the change request (its page's link now reaches a page): it merges.
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'Nowhere' }]);
    ok(await merge(space.id, cr.id));

    // Inherited from the organization.
    const inheriting = await newSpace('Inheriting link rules');
    ok(await admin.api.patch(`/v1/orgs/${orgId}`, { mergeRules: rules }));
    try {
      assert.deepEqual(ok(await admin.api.get(`/v1/orgs/${orgId}`)).mergeRules, rules);
      const inherited = await addBrokenLink('inherited', inheriting.id);
      assert.match((await merge(inheriting.id, inherited.id)).body.error.message, /"nowhere\.md" on page "Notes inherited"/);
    } finally {
      ok(await admin.api.patch(`/v1/orgs/${orgId}`, { mergeRules: { type: 'rules', rules: [] } }));
    }
  });

  it("lists a change request's reviews only where the change request is visible: 404 for unknown ids and outsiders, 400 for a malformed id", async () => {
    const space = await newSpace('Reviews refused');
    const cr = await newChangeRequest(space.id, 'Reviewed once');
    ok(await reviewer.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`, { status: 'approved' }), 201);
    const other = await newSpace('Other reviews');

    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/no-such-cr/reviews`), 404, 'Change request');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/999/reviews`), 404, 'Change request');
    // A change request is reached only through its own space.
    assertError(await reader.api.get(`/v1/spaces/${other.id}/change-requests/${cr.id}/reviews`), 404, 'Change request');
    assertError(await reader.api.get(`/v1/spaces/no-such-space/change-requests/${cr.id}/reviews`), 404);
    assertError(await outsider.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/reviews`), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${'x'.repeat(65)}/reviews`), 400, 'changeRequestId');

    for (const ref of [cr.id, String(cr.number)]) {
      const listed = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${ref}/reviews`));
      assert.equal(listed.count, 1);
      assert.deepEqual(
        listed.items.map((review: any) => [review.reviewer.id, review.status, review.outdated]),
        [[reviewer.userId, 'approved', false]],
      );
      for (const review of listed.items) assertMatchesOpenApi('ChangeRequestReview', review);
    }
  });

  it('classifies links and answers links and backlinks for the space and change requests', async () => {
    const { space, pages } = await seededSpace('Linked', [
      { title: 'Home', markdown: `[guide](guide.md) [gone](missing.md) [app](${stack.baseUrl}/s/x) [web](https://example.org)` },
      { title: 'Guide', markdown: 'Just text.' },
    ]);
    const [home, guide] = pages;
    const plain = ok(await reader.api.get(`/v1/spaces/${space.id}/content?metadata=false&computed=false`));
    assertMatchesOpenApi('Revision', plain);
    assert.equal(plain.git, undefined);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content?metadata=maybe`), 400, 'metadata');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/content/path/guide`)).id, guide.id);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/path/guide/none`), 404);
    const links = ok(await reader.api.get(`/v1/spaces/${space.id}/links`));
    assert.deepEqual(links.stats, { total: 4, broken: { total: 1, changeRequest: 0 } });
    assert.deepEqual(links.items.map((item: any) => item.status).sort(), ['broken', 'in-app', 'ok', 'ok']);
    const broken = ok(await reader.api.get(`/v1/spaces/${space.id}/links?status=broken`));
    assert.equal(broken.count, 1);
    assert.deepEqual(broken.items[0].locationReferences, [{ kind: 'page', page: home.id, space: space.id }]);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/links?status=weird`), 400, 'status');
    const pageLinks = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${home.id}/links?limit=2`));
    assert.equal(pageLinks.count, 4);
    assert.equal(pageLinks.items.length, 2);
    assert.deepEqual(pageLinks.stats, { total: 4, broken: { total: 1, changeRequest: 0 } }, 'a page links list has its stats too');
    const rest = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${home.id}/links?limit=2&page=${pageLinks.next.page}`));
    assert.equal(rest.items.length, 2);
    const backlinks = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${guide.id}/backlinks`));
    assert.deepEqual(backlinks.items, [
      {
        kind: 'page',
        organization: orgId,
        space: space.id,
        versionContext: { type: 'revision', revision: ok(await admin.api.get(`/v1/spaces/${space.id}`)).revision },
        page: home.id,
      },
    ]);

    const cr = await newChangeRequest(space.id, 'Fix links');
    const added = await write(space.id, cr.id, [
      { type: 'insert_files', files: [{ name: 'diagram.png', contentType: 'image/png', data: Buffer.from('png').toString('base64') }] },
      { type: 'update_page', page: guide.id, markdown: `![d](.gitbook/assets/diagram.png) [home](/pages/${home.id}) [bad](nowhere.md)` },
    ]);
    const fileId = added.insertedFiles[0].id;
    const crBase = `/v1/spaces/${space.id}/change-requests/${cr.id}/content`;
    assert.equal(ok(await reader.api.get(`${crBase}/files/${fileId}/backlinks`)).items[0].page, guide.id);
    assert.equal(ok(await reader.api.get(`${crBase}/page/${home.id}/backlinks`)).count, 1);
    assert.equal(ok(await reader.api.get(`${crBase}/page/${guide.id}/links?status=broken`)).count, 1);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/links`)).stats.broken.changeRequest, 1);
    const guideLinks = (base: string) => reader.api.get(`${base}/page/${guide.id}/links`).then((r) => ok(r).stats);
    assert.deepEqual(
      await guideLinks(`/v1/spaces/${space.id}/content`),
      { total: 0, broken: { total: 0, changeRequest: 1 } },
      'what the open change request would break there',
    );
    assert.deepEqual(await guideLinks(crBase), { total: 3, broken: { total: 1, changeRequest: 0 } }, "the change request's own page");
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files/${fileId}/backlinks`), 404);
    assertError(await outsider.api.get(`/v1/spaces/${space.id}/links`), 404);
  });

  it('works with the official GitBook client unchanged', async () => {
    const client: any = new GitBookAPI({ authToken: reviewer.token, endpoint: stack.baseUrl });
    const space = await newSpace('Client');
    const created = await client.spaces.createChangeRequest(space.id, { subject: 'From the client' });
    assert.equal(created.status, 201);
    await write(space.id, created.data.id, [{ type: 'insert_page', title: 'Client page', markdown: 'Hi' }], reviewer.api);
    const listed = await client.spaces.listChangeRequestsForSpace(space.id);
    assert.equal(listed.data.items[0].id, created.data.id);
    const fetched = await client.spaces.getChangeRequestById(space.id, String(created.data.number));
    assert.equal(fetched.data.subject, 'From the client');
    const merged = await client.spaces.mergeChangeRequest(space.id, created.data.id);
    assert.deepEqual(merged.data, { revision: merged.data.revision, result: 'merge' });
    const revision = await client.spaces.getCurrentRevision(space.id, { metadata: false });
    assert.equal(revision.data.id, merged.data.revision);
    const page = await client.spaces.getPageByPath(space.id, 'client-page');
    assert.equal(page.data.markdown, 'Hi');
    const pdf = await client.spaces.getChangeRequestPdf(space.id, created.data.id);
    assert.ok(pdf.data.url.includes('/v1/public/content/pdf/'));
  });

  it('renders a change request as a PDF behind a signed, expiring address', async () => {
    const { space, pages } = await seededSpace('Printed', [{ title: 'Printed Intro', markdown: '# Welcome\n\nSome text.' }]);
    const cr = await newChangeRequest(space.id, 'Print me');
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'Printed Appendix', markdown: '- item one\n- item two' }]);
    const { url } = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`));
    assert.ok(url.startsWith(`${stack.baseUrl}/v1/public/content/pdf/`));
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    const text = pdfText;
    const all = await text(await response.arrayBuffer());
    assert.match(all, /Printed Intro/);
    assert.match(all, /Printed Appendix/);
    const single = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf?only=true&page=${pages[0].id}`));
    const one = await text(await (await fetch(single.url)).arrayBuffer());
    assert.match(one, /Printed Intro/);
    assert.doesNotMatch(one, /Printed Appendix/);
    const forged = new URL(single.url);
    forged.searchParams.set('page', 'other');
    assert.equal((await fetch(forged)).status, 403);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf?only=true`), 400, 'page');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf?page=nope`), 404);
    assertError(await outsider.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`), 404);
  });
});
